import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AgentRuntime } from "../../src/agent/index.js";
import { ConflictError } from "../../src/core/index.js";
import { type ModelServer, reply, startModelServer } from "../support/model-server.js";
import { createTestBrain, openTestRuntime, type TestBrain } from "../support/test-brain.js";

let server: ModelServer;
let brain: TestBrain;
let runtime: AgentRuntime;
let clock = new Date("2026-03-03T10:00:00Z");

const LOG = "logs/2026-03-01.md";
const CITE = `[${LOG}#Boiler pressure]`;

beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());
beforeEach(async () => {
  server.reset();
  clock = new Date("2026-03-03T10:00:00Z");
  brain = await createTestBrain({ baseUrl: server.url });
  brain.write(LOG, "# 2026-03-01\n\n## Boiler pressure\n\nThe boiler pressure should sit at 1.5 bar.\n");
  runtime = await openTestRuntime(brain, { now: () => clock });
});
afterEach(async () => {
  await runtime?.close();
  brain?.remove();
});

const read = (path: string) => readFileSync(join(brain.root, path), "utf8");

/** One session in which the answer uses the pressure note and cites it (or not). */
async function askAboutPressure(sessionId: string, at: string, answer = `It should be 1.5 bar ${CITE}.`) {
  clock = new Date(at);
  server.enqueue(reply.text(answer));
  return runtime.runTurn({ sessionId, prompt: "What should the boiler pressure be?" });
}

describe("past conversations and cited memory", () => {
  it("finds a fact said in another session a day later through the memory tool, with its id and citation key", async () => {
    server.enqueue(reply.text("Noted."));
    await runtime.runTurn({
      sessionId: "s-day1",
      prompt: "We agreed the plumber Anna comes on Tuesday about the boiler.",
    });
    clock = new Date("2026-03-04T09:00:00Z");
    server.enqueue(
      reply.toolCalls([
        { name: "memory", arguments: { action: "recall", query: "plumber boiler Tuesday", top_k: 2 } },
      ]),
      reply.text("Anna comes on Tuesday [sessions/2026-03-03/s-day1.md#10:00:00 — user]."),
    );
    const turn = await runtime.runTurn({ sessionId: "s-day2", prompt: "When does the plumber come?" });
    const result = turn.newMessages.find((m) => m.role === "tool")?.content ?? "";
    expect(result).toMatch(
      /^Cite what you use as \[path#heading\]\.\n\n\[1\] \[sessions\/2026-03-03\/s-day1\.md#10:00:00 — user\] id [0-9a-f]{32}, /,
    );
    expect(result).toContain("We agreed the plumber Anna comes on Tuesday about the boiler.");
    // The prompt asked the model to cite, and the day-2 turn's own recall already offered the passage.
    const system = String(server.chatRequests()[1]?.messages[0]?.content);
    expect(system).toContain("cite it as [path#heading]");
    expect(system).toContain("cite as [sessions/2026-03-03/s-day1.md#10:00:00 — user]");
  });
});

describe("promotion of recalled passages into memory.md", () => {
  it("proposes a log passage cited in three sessions on two days, and writes it only when approved", async () => {
    await askAboutPressure("s1", "2026-03-03T10:00:00Z");
    await askAboutPressure("s2", "2026-03-03T15:00:00Z");
    // Used twice in one session, and an answer that does not cite: neither counts.
    await askAboutPressure("s2", "2026-03-03T15:05:00Z");
    await askAboutPressure("s3", "2026-03-03T16:00:00Z", "It should be 1.5 bar.");
    expect(runtime.conversations.promotions.list()).toEqual([]);

    await askAboutPressure("s4", "2026-03-05T08:00:00Z");
    const [proposal] = runtime.conversations.promotions.list("pending");
    expect(proposal).toMatchObject({
      path: LOG,
      headings: ["2026-03-01", "Boiler pressure"],
      sessions: 3,
      days: 2,
    });
    const before = read("memory.md");

    clock = new Date("2026-03-05T09:00:00Z");
    const approved = await runtime.conversations.promotions.decide(proposal?.id ?? "", "approve", {
      actor: "user",
      at: clock,
    });
    expect(approved).toMatchObject({ status: "approved", decidedAt: "2026-03-05T09:00:00.000Z" });
    const memory = read("memory.md");
    expect(memory.startsWith(before)).toBe(true);
    expect(memory.slice(before.length)).toBe(
      "\n## The boiler pressure should sit at 1.5 bar.\n\nThe boiler pressure should sit at 1.5 bar.\n\n" +
        `_Source: ${CITE} — used in 3 sessions on 2 days; approved 2026-03-05_\n`,
    );
    expect(approved.resultRef).toMatch(/^memory\.md#L\d+-L\d+$/);
    await expect(
      runtime.conversations.promotions.decide(proposal?.id ?? "", "reject", { actor: "user", at: clock }),
    ).rejects.toBeInstanceOf(ConflictError);
  });

  it("never proposes a rejected passage again", async () => {
    for (const [s, at] of [
      ["s1", "2026-03-03T10:00:00Z"],
      ["s2", "2026-03-04T10:00:00Z"],
      ["s3", "2026-03-05T10:00:00Z"],
    ] as const)
      await askAboutPressure(s, at);
    const [proposal] = runtime.conversations.promotions.list("pending");
    await runtime.conversations.promotions.decide(proposal?.id ?? "", "reject", { actor: "user", at: clock });
    await askAboutPressure("s5", "2026-03-06T10:00:00Z");
    expect(runtime.conversations.promotions.list().map((p) => p.status)).toEqual(["rejected"]);
    expect(read("memory.md")).not.toContain("1.5 bar");
  });

  it("follows irowclaw.toml's [promotion]: its thresholds from the next turn on, and nothing when it is off", async () => {
    const config = join(brain.root, "config/irowclaw.toml");
    const original = readFileSync(config, "utf8");
    writeFileSync(config, `${original}\n[promotion]\nmin_sessions = 2\nmin_days = 1\n`);
    await askAboutPressure("s1", "2026-03-03T10:00:00Z");
    expect(runtime.conversations.promotions.list()).toEqual([]);
    await askAboutPressure("s2", "2026-03-03T11:00:00Z");
    expect(runtime.conversations.promotions.list("pending")).toEqual([
      expect.objectContaining({ path: LOG, sessions: 2, days: 1 }),
    ]);

    writeFileSync(config, `${original}\n[promotion]\nenabled = false\nmin_sessions = 1\nmin_days = 1\n`);
    brain.write("logs/2026-03-02.md", "# 2026-03-02\n\n## Radiators\n\nBleed the radiators in October.\n");
    await runtime.memory.index();
    clock = new Date("2026-03-04T10:00:00Z");
    server.enqueue(
      reply.toolCalls([{ name: "memory", arguments: { action: "recall", query: "bleed the radiators" } }]),
      reply.text("In October [logs/2026-03-02.md#Radiators]."),
    );
    await runtime.runTurn({ sessionId: "s3", prompt: "When do I bleed the radiators?" });
    expect(runtime.conversations.promotions.list().map((p) => p.path)).toEqual([LOG]);
    // Control: the citation was recorded, and the same rule switched on proposes it at the next turn.
    writeFileSync(config, `${original}\n[promotion]\nmin_sessions = 1\nmin_days = 1\n`);
    await askAboutPressure("s4", "2026-03-04T11:00:00Z");
    expect(new Set(runtime.conversations.promotions.list().map((p) => p.path))).toEqual(
      new Set([LOG, "logs/2026-03-02.md"]),
    );
  });
});
