import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CellBackend,
  type CellHandle,
  createBwrapBackend,
  createProcessBackend,
  defaultRuntime,
  type GuestRuntime,
} from "../../src/cells/index.js";
import type { ProtocolMessage } from "../../src/contracts/index.js";
import { createLogger } from "../../src/core/index.js";
import { initBrain } from "../../src/memory/index.js";
import { HostProviders, serveCellRequests } from "../../src/warden/index.js";
import { type ModelServer, reply, startModelServer } from "../support/model-server.js";
import { removeTestBundle, testBundleRuntime } from "./test-bundle.js";

let server: ModelServer;
let home = "";
let bundle: GuestRuntime;

/** A user's brain whose agent talks to the local model server; embeddings come from it too. */
async function seedBrain(user: string): Promise<string> {
  const userDir = join(home, user);
  const brain = join(userDir, "brain");
  await initBrain(brain);
  await writeFile(
    join(brain, "config/irowclaw.toml"),
    `default_agent = "assistant"\n\n[providers.local]\nbase_url = "${server.url}"\n\n` +
      '[tools]\nallow = ["file", "memory"]\n\n' +
      '[indexing]\nembedder = "provider"\nembedding_provider = "local"\nembedding_model = "test-embed"\n',
  );
  await writeFile(
    join(brain, "config/agents/assistant.toml"),
    'name = "assistant"\nprovider = "local"\nmodel = "test-model"\n',
  );
  await writeFile(
    join(brain, "cron/jobs.toml"),
    '[[jobs]]\nid = "morning-brief"\nschedule = "0 7 * * *"\nprompt = "Brief me."\n',
  );
  return userDir;
}

/** The warden's side of a cell: its model calls go to the local model server, its fetches nowhere private. */
function serveModels(cell: CellHandle, userId: string, audit: (entry: unknown) => void): () => void {
  return serveCellRequests(cell, {
    userId,
    providers: new HostProviders({ providers: { local: { base_url: server.url, models: [] } } }, {}),
    egress: {
      policy: "allow",
      allow_hosts: [],
      deny_hosts: [],
      allow_private: false,
      max_bytes: 1 << 20,
      timeout_ms: 5_000,
      secret_uses_per_minute: 120,
      proxy: true,
    },
    audit,
    logger: createLogger("test", { level: "silent" }),
  });
}

beforeAll(async () => {
  server = await startModelServer();
  home = await mkdtemp(join(tmpdir(), "ironclaw-agent-cell-"));
  await chmod(home, 0o755);
  bundle = await testBundleRuntime();
}, 120_000);
afterAll(async () => {
  await server.close();
  await rm(home, { recursive: true, force: true });
  await removeTestBundle();
});

const backends: Array<[string, () => CellBackend]> = [
  ["process", () => createProcessBackend({ runtime: defaultRuntime(), onWarning: () => {} })],
  // No network in the cell: the agent reaches its model and embeddings only through the warden's proxy.
  ["bwrap", () => createBwrapBackend({ runtime: defaultRuntime() })],
  // What production runs: the one-file bundle npm run build makes.
  ["bwrap-bundle", () => createBwrapBackend({ runtime: bundle })],
];

describe.each(backends)("the agent runtime in a %s cell", (name, make) => {
  it("streams a model's answer as StreamDelta frames and ends the turn with TurnComplete", async () => {
    const userDir = await seedBrain(`agent-${name}`);
    const cell = await make().start({
      userId: `agent-${name}`,
      userDir,
      handler: "agent",
      startTimeoutMs: 90_000,
    });
    const audits: unknown[] = [];
    const detach = serveModels(cell, `agent-${name}`, (entry) => audits.push(entry));
    try {
      server.enqueue(reply.text("Tea is on your list.", { chunks: 3 }));
      const replies: ProtocolMessage[] = [];
      for await (const m of cell.request(
        { type: "UserMessage", text: "Add tea to my list" },
        { timeoutMs: 60_000 },
      )) {
        replies.push(m);
      }
      const deltas = replies
        .filter((m) => m.type === "StreamDelta")
        .map((m) => (m.type === "StreamDelta" ? m.delta : ""));
      expect(deltas.join("")).toBe("Tea is on your list.");
      expect(replies.at(-1)).toMatchObject({
        type: "TurnComplete",
        text: "Tea is on your list.",
        stop_reason: "stop",
      });

      server.enqueue(reply.text("Good morning."));
      const statuses: ProtocolMessage[] = [];
      for await (const m of cell.request(
        { type: "JobTrigger", job_id: "morning-brief" },
        { timeoutMs: 60_000 },
      )) {
        statuses.push(m);
      }
      expect(statuses.map((m) => (m.type === "JobStatus" ? m.status : m.type))).toEqual([
        "running",
        "succeeded",
      ]);
      expect(statuses.at(-1)).toMatchObject({
        result_ref: expect.stringMatching(/^logs\/\d{4}-\d{2}-\d{2}\.md#L/),
      });
      expect(audits).toEqual([]);
    } finally {
      detach();
      await cell.stop();
    }
  }, 180_000);
});

describe("command's order worker in a process cell", () => {
  // Seed 001's workers are stateless: an order's agent recalls nothing into its prompt, keeps no transcript and
  // does not index what lies in its brain (the order's worktree is attached there). The agent handler, run on
  // the same brain, is the control: it does recall the note, so the check can fail.
  it.each([
    ["order", false],
    ["agent", true],
  ] as const)(
    "the %s handler recalls a note into the prompt: %s",
    async (handler, recalls) => {
      const user = `worker-${handler}`;
      const userDir = await seedBrain(user);
      const brain = join(userDir, "brain");
      await mkdir(join(brain, "notes"), { recursive: true });
      await writeFile(
        join(brain, "notes/plants.md"),
        "# Plants\n\nThe balcony heliotrope needs water on Fridays.\n",
      );
      const cell = await createProcessBackend({ runtime: defaultRuntime(), onWarning: () => {} }).start({
        userId: user,
        userDir,
        handler,
        startTimeoutMs: 90_000,
      });
      const detach = serveModels(cell, user, () => {});
      try {
        server.reset();
        server.enqueue(reply.text("Done."));
        const replies: ProtocolMessage[] = [];
        for await (const m of cell.request(
          { type: "UserMessage", text: "When does the balcony heliotrope need water?", session_id: "s1" },
          { timeoutMs: 60_000 },
        ))
          replies.push(m);
        expect(replies.at(-1)).toMatchObject({ type: "TurnComplete", text: "Done." });
        const system = JSON.stringify(server.chatRequests()[0]?.messages[0] ?? {});
        expect(system.includes("needs water on Fridays")).toBe(recalls);
        // The turn's transcript: written by the agent, not by the stateless worker.
        expect(existsSync(join(brain, "sessions"))).toBe(recalls);
      } finally {
        detach();
        await cell.stop();
      }
    },
    180_000,
  );
});
