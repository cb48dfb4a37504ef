import { spawnSync } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply } from "../support/model-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// A run that reaches its user's spend cap mid-way, through `ironclaw serve`'s warden: alice asks her agent (a real
// cell) for two notes, b after a; each order runs as an agent in a cell of hers under her daily cap. Output costs
// $10 per million tokens and a capped call reserves 1000 tokens of it, so every call may cost up to $0.01. The
// scripted model reports a's two calls as 1000 tokens each ($0.01) and everything else as 10: a is admitted,
// merged, and leaves $0.0203 spent of the $0.025 cap, so b's first call, which could cost $0.01, is refused
// before it reaches the model. The run must stop there with the cap named, a staying merged and b never retried.

const CAP_USD = 0.025;
const OBJECTIVE = "Write two notes, b after a";
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
      depends_on: ["a"],
      acceptance_commands: ["test -s notes/b.md"],
    },
  ],
};
const CHEAP = { usage: { prompt_tokens: 100, completion_tokens: 10 } };
const DEAR = { usage: { prompt_tokens: 100, completion_tokens: 1000 } };
const PRICE = { input: 0, output: 10 };

let h: WardenHarness;
let alice: ReturnType<typeof api>;
/** The order ids whose agents reached the model. */
const modelSaw = new Set<string>();

type Message = { role: string; content?: unknown };

/** What the scripted model answers, by who is asking: the planner, an order's agent, or alice's own agent. */
function script(body: Record<string, unknown>) {
  const messages = (body.messages ?? []) as Message[];
  const text = JSON.stringify(messages);
  const toolAnswered = messages.some((m) => m.role === "tool");
  if (text.includes("commanding officer")) return reply.text(JSON.stringify(PLAN), CHEAP);
  const orderId = /jarvis-order_([0-9A-Za-z]+)/.exec(text)?.[1];
  if (orderId) {
    modelSaw.add(orderId);
    const file = /Write (notes\/[ab]\.md)/.exec(text)?.[1] ?? "notes/unknown.md";
    const shape = file === "notes/a.md" ? DEAR : CHEAP;
    if (!toolAnswered)
      return reply.toolCalls(
        [{ name: "file", arguments: { action: "write", path: `work/${file}`, content: `# ${file}\n` } }],
        shape,
      );
    const fields = {
      run_id: orderId,
      branch: `jarvis-order_${orderId}`,
      commit_sha: "abc1234",
      files_changed: [file],
      test_result: `test -s ${file} passed`,
      risk: "low - one new note",
      pr_skipped_reason: "the host integrates the worktree",
    };
    return reply.text(`Wrote ${file}.\n<completion>\n${JSON.stringify(fields)}\n</completion>`, shape);
  }
  if (!toolAnswered)
    return reply.toolCalls(
      [{ name: "command", arguments: { action: "start", theater: "demo", objective: OBJECTIVE } }],
      CHEAP,
    );
  return reply.text("Command has it; I will tell you here when it is done.", CHEAP);
}

beforeAll(async () => {
  h = await startWardenHarness({
    configure: (c) => ({
      ...c,
      cells: { ...c.cells, pool_size: 0 },
      // Orders run on their profile's model ("default" unless the plan names one); both are priced alike.
      pricing: { local: { "test-model": PRICE, default: PRICE, "test-embed": { input: 0, output: 0 } } },
      budgets: { ...c.budgets, default_max_tokens: 1000 },
    }),
  });
  h.model.respondWith(script);
  const admin = api(h.url, (await h.warden.context.users.add("boss", { admin: true })).token);
  alice = api(h.url, await h.addUser("alice"));
  expect((await admin("PUT", "/api/budgets", { user: "alice", daily_usd: CAP_USD })).status).toBe(200);
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

type Event = { type: string; order_id: string | null; payload: Record<string, unknown> };

describe("a run that reaches its user's spend cap", () => {
  it("stops with the cap named: the order merged before stays merged, the refused one is not retried, alice is told", async () => {
    const asked = await json<{ session_id: string; text: string }>(
      await alice("POST", "/api/chat", { text: `in theater demo: ${OBJECTIVE}` }),
    );
    expect(asked.text).toContain("Command has it");

    type Entry = { role: string; content: string; meta?: Record<string, unknown> };
    const notice = await until(async () => {
      const { entries } = await json<{ entries: Entry[] }>(
        await alice("GET", `/api/sessions/${asked.session_id}`),
      );
      const done = entries.find((e) => e.meta?.source === "command" && e.meta?.notice === "reply");
      if (done) throw new Error(`the run completed over the cap: ${done.content}`);
      return entries.find((e) => e.meta?.source === "command" && e.meta?.notice === "failure");
    }, 150_000);
    // Which cap, what was spent against what limit.
    expect(notice.content).toMatch(
      /stopped by a spend cap: budget exceeded: daily budget of \$0\.025 for user alice reached \(\$0\.02\d* spent/,
    );

    const { runs } = await json<{ runs: Array<{ run_id: string; status: string }> }>(
      await alice("GET", "/api/runs"),
    );
    expect(runs).toHaveLength(1);
    const run = runs[0] as { run_id: string; status: string };
    expect(run.status).toBe("CANCELLED");
    const detail = await json<{
      orders: Array<{
        order_id: string;
        key: string;
        status: string;
        attempt: number;
        integration_state: string | null;
      }>;
    }>(await alice("GET", `/api/runs/${run.run_id}`));
    const [a, b] = detail.orders;
    expect(a).toMatchObject({ key: "a", status: "COMPLETED", integration_state: "INTEGRATED" });
    expect(b).toMatchObject({ key: "b", status: "CANCELLED", attempt: 1, integration_state: null });
    // b's agent never reached the model: its first call was refused at the proxy, and it was not tried again.
    expect(modelSaw.has(a?.order_id ?? "")).toBe(true);
    expect(modelSaw.has(b?.order_id ?? "")).toBe(false);

    const { events } = await json<{ events: Event[] }>(
      await alice("GET", `/api/ledger/events?run_id=${run.run_id}&limit=1000`),
    );
    const ofB = events.filter((e) => e.order_id === b?.order_id).map((e) => e.type);
    expect(ofB.filter((t) => t === "ORDER_STARTED")).toHaveLength(1);
    expect(ofB).not.toContain("ORDER_REISSUED");
    expect(ofB.some((t) => t.startsWith("INTEGRATION") || t === "INTEGRATED")).toBe(false);
    const failed = events.find((e) => e.type === "ORDER_FAILED" && e.order_id === b?.order_id);
    expect(String(failed?.payload.reason)).toMatch(/^failed: \$ budget exceeded: daily budget of \$0\.025/);
    const stop = events.find((e) => e.type === "RUN_CANCELLED");
    expect(String(stop?.payload.reason)).toMatch(/^stopped by a spend cap: budget exceeded: /);
    const cancelledB = events.find((e) => e.type === "ORDER_CANCELLED" && e.order_id === b?.order_id);
    expect(cancelledB?.payload.reason).toBe(stop?.payload.reason);
    // Nothing happened to the run after its stop but b's own cancel.
    expect(events.slice(events.indexOf(stop as Event) + 1).map((e) => e.type)).toEqual(["ORDER_CANCELLED"]);

    // main holds a's merge and nothing of b.
    const integrated = events.filter((e) => e.type === "INTEGRATED");
    expect(integrated.map((e) => e.order_id)).toEqual([a?.order_id]);
    const theaters = await json<
      | { theaters: Array<{ theater_id: string; repo_path: string }> }
      | Array<{ theater_id: string; repo_path: string }>
    >(await alice("GET", "/api/theaters"));
    const list = Array.isArray(theaters) ? theaters : theaters.theaters;
    const repo = list.find((t) => t.theater_id === "demo")?.repo_path ?? "";
    const git = (...args: string[]) =>
      spawnSync("git", ["-C", repo, ...args], { encoding: "utf8" }).stdout.trim();
    expect(git("log", "--merges", "--format=%H", "main").split("\n")).toHaveLength(1);
    expect(git("rev-parse", "main")).toBe(integrated[0]?.payload.commit_sha);
    expect(git("ls-tree", "--name-only", "main", "notes/")).toBe("notes/a.md");
  }, 240_000);
});
