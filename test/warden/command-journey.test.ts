import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EvolutionStore } from "../../src/evolution/index.js";
import { reply } from "../support/model-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";
import { orderTurn } from "../support/worker-script.js";

// The whole of command as a user meets it, through `ironclaw serve`'s warden: the user asks their own agent (a
// real cell) in chat; its `command` tool starts a run; the host's model plans three orders, the third after the
// other two; each runs as an agent in a cell of its own over its own worktree; each is gated and merged into the
// theater's main in dependency order; the run's reply comes back into the same conversation. The model is the
// scripted server over HTTP, answering by what each request is.

let h: WardenHarness;
let alice: ReturnType<typeof api>;

const OBJECTIVE = "Write three notes, the summary after the two it sums up";
const PLAN = {
  orders: [
    {
      key: "a",
      type: "implement",
      objective: "Write notes/a.md",
      acceptance_commands: ["test -s notes/a.md"],
    },
    {
      key: "b",
      type: "implement",
      objective: "Write notes/b.md",
      acceptance_commands: ["test -s notes/b.md"],
    },
    {
      key: "c",
      type: "implement",
      objective: "Write notes/c.md",
      depends_on: ["a", "b"],
      acceptance_commands: ["test -s notes/a.md && test -s notes/b.md && test -s notes/c.md"],
    },
  ],
};

type Message = { role: string; content?: unknown };

/** What the scripted model answers, by who is asking: the planner, an order's agent, or the user's agent. */
function script(body: Record<string, unknown>) {
  const messages = (body.messages ?? []) as Message[];
  const text = JSON.stringify(messages);
  const toolAnswered = messages.some((m) => m.role === "tool");
  if (text.includes("commanding officer")) return reply.text(JSON.stringify(PLAN));
  const orderId = /jarvis-order_([0-9A-Za-z]+)/.exec(text)?.[1];
  if (orderId) {
    const file = /Write (notes\/[abc]\.md)/.exec(text)?.[1] ?? "notes/unknown.md";
    return orderTurn({ kind: "order", orderId, file, toolAnswered });
  }
  if (!toolAnswered) {
    return reply.toolCalls([
      { name: "command", arguments: { action: "start", theater: "demo", objective: OBJECTIVE } },
    ]);
  }
  return reply.text("Command has it; I will tell you here when it is done.");
}

beforeAll(async () => {
  h = await startWardenHarness({ configure: (c) => ({ ...c, cells: { ...c.cells, pool_size: 0 } }) });
  h.model.respondWith(script);
  alice = api(h.url, await h.addUser("alice"));
  expect((await alice("POST", "/api/theaters", { theater_id: "demo" })).status).toBe(201);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

async function json<T>(response: Response): Promise<T> {
  return ((await response.json()) as { data: T }).data;
}

async function until<T>(probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`not seen within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe("command from the user's chat to three merges", () => {
  it("plans three orders, runs each in its own cell and worktree, merges them in dependency order and answers in the conversation", async () => {
    const asked = await json<{ session_id: string; text: string }>(
      await alice("POST", "/api/chat", { text: `in theater demo: ${OBJECTIVE}` }),
    );
    expect(asked.text).toContain("Command has it");

    type Entry = { role: string; content: string; meta?: Record<string, unknown> };
    const entries = async () =>
      (await json<{ entries: Entry[] }>(await alice("GET", `/api/sessions/${asked.session_id}`))).entries;
    // The run's reply arrives in the same conversation, after the agent's own answer.
    const replyEntry = await until(async () => {
      const found = (await entries()).find((e) => e.meta?.source === "command" && e.meta?.notice === "reply");
      const failed = (await entries()).find(
        (e) => e.meta?.source === "command" && e.meta?.notice === "failure",
      );
      if (failed) throw new Error(`the run failed: ${failed.content}`);
      return found;
    }, 150_000).catch(async (error: Error) => {
      // What the run got to, so a failure says where it stopped.
      const seen = await json<{ runs: Array<{ run_id: string }> }>(await alice("GET", "/api/runs"));
      const story = await Promise.all(
        seen.runs.map(async (r) =>
          (await alice("GET", `/api/ledger/events?run_id=${r.run_id}&limit=1000`)).text(),
        ),
      );
      throw new Error(
        `${error.message}: runs ${JSON.stringify(seen)}; events ${story.join("\n").slice(0, 6000)}`,
      );
    });
    expect(replyEntry.role).toBe("assistant");

    const runs = await json<{ runs: Array<{ run_id: string; status: string; objective: string }> }>(
      await alice("GET", "/api/runs"),
    );
    expect(runs.runs).toHaveLength(1);
    const run = runs.runs[0] as { run_id: string; status: string; objective: string };
    expect(run).toMatchObject({ status: "COMPLETE", objective: OBJECTIVE });

    // The projections agree with the ledger: every order integrated, each with the merge the event names.
    const detail = await json<{
      orders: Array<{ order_id: string; key?: string; integration_state: string }>;
    }>(await alice("GET", `/api/runs/${run.run_id}`));
    expect(detail.orders.map((o) => o.integration_state)).toEqual(["INTEGRATED", "INTEGRATED", "INTEGRATED"]);
    const story = await json<{
      events: Array<{ type: string; order_id: string | null; payload: { commit_sha?: string } }>;
    }>(await alice("GET", `/api/ledger/events?run_id=${run.run_id}&limit=1000`));
    const types = story.events.map((e) => e.type);
    expect(types[0]).toBe("RUN_CREATED");
    expect(types.at(-1)).toBe("RUN_COMPLETED");
    expect(types.filter((t) => t === "ORDER_CREATED")).toHaveLength(3);
    expect(types.filter((t) => t === "ORDER_COMPLETED")).toHaveLength(3);
    const integrated = story.events.filter((e) => e.type === "INTEGRATED");
    expect(integrated).toHaveLength(3);
    const keyOf = new Map(detail.orders.map((o) => [o.order_id, o.key]));
    // c depends on a and b, so it is merged last.
    expect(keyOf.get(integrated[2]?.order_id ?? "")).toBe("c");
    for (const event of integrated) {
      const order = await json<{ commit_sha: string }>(await alice("GET", `/api/orders/${event.order_id}`));
      expect(order.commit_sha).toBe(event.payload.commit_sha);
    }

    // The theater's main holds exactly three merges, the last one the run's last INTEGRATED, and all three notes.
    const theaters = await json<
      | { theaters: Array<{ theater_id: string; repo_path: string }> }
      | Array<{ theater_id: string; repo_path: string }>
    >(await alice("GET", "/api/theaters"));
    const list = Array.isArray(theaters) ? theaters : theaters.theaters;
    const repo = list.find((t) => t.theater_id === "demo")?.repo_path ?? "";
    const git = (...args: string[]) =>
      spawnSync("git", ["-C", repo, ...args], { encoding: "utf8" }).stdout.trim();
    expect(git("log", "--merges", "--format=%H", "main").split("\n")).toHaveLength(3);
    expect(git("rev-parse", "main")).toBe(integrated[2]?.payload.commit_sha);
    expect(git("ls-tree", "--name-only", "main", "notes/").split("\n").sort()).toEqual([
      "notes/a.md",
      "notes/b.md",
      "notes/c.md",
    ]);

    // Both sessions fed evolution: the chat that started the run (its tool), and the run, whose end is its outcome.
    const evolution = EvolutionStore.open(join(h.home, "evolution"));
    const outcome = await until(
      async () => evolution.projected().find((r) => r.session_id === run.run_id),
      20_000,
    );
    expect(outcome).toMatchObject({ task: OBJECTIVE, status: "success", score: 1 });
    expect(outcome.metadata).toMatchObject({
      channel: "command",
      user_id: "alice",
      outcome: "RUN_COMPLETED",
    });
    const started = evolution.envelopes().map((line) => line.envelope.event);
    expect(
      started.find((e) => e.session_id === run.run_id && e.event_kind === "session_started"),
    ).toBeTruthy();
    expect(
      started.find((e) => e.session_id === asked.session_id && e.event_kind === "session_started"),
    ).toMatchObject({ selected_skill_ids: ["command"], metadata: { channel: "api", user_id: "alice" } });
  }, 300_000);
});
