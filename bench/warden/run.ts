// Warden benchmark: `node --import tsx bench/warden/run.ts [turns] [users] [turns-per-user]` (default 200 20 5).
// A chat turn through the whole product (HTTP → warden → the user's bwrap cell over the framed protocol → the
// model proxy → the scripted model server, and back) against the same turn run in-process (AgentRuntime and a
// bare runAgent) on the same server, in the same run. Then many users at once: turn latency under load and the
// host memory each warm cell costs. The model answers at zero latency, so what is timed is IronClaw. Last, what
// spend caps cost: the reservation and settlement per model call on host.db, and a turn under caps against the
// same turn without.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { AgentRuntime, createToolBox, MemoryAuditLog, PathPolicy, runAgent } from "../../src/agent/index.js";
import { createLogger } from "../../src/core/index.js";
import { createOpenAiProvider, OpenAiEmbedder } from "../../src/providers/index.js";
import { reply } from "../../test/support/model-server.js";
import { createTestBrain } from "../../test/support/test-brain.js";
import { api, startWardenHarness } from "../../test/support/warden-harness.js";
import { formatTable, summarise, timeRounds } from "../agent/timing.js";
import { percentile } from "../percentile.js";
import { measureBudgetCost } from "./budget-cost.js";

const TURNS = Number(process.argv[2] ?? 200);
const USERS = Number(process.argv[3] ?? 20);
const PER_USER = Number(process.argv[4] ?? 5);
const ANSWER = "The launch is on the fourteenth of March, and the venue is the old harbour hall.";

const h = await startWardenHarness({
  // Cold starts, as the "cold start to first answer" figure says: a pooled first turn is bench:warden:first-turn's.
  configure: (config) => ({
    ...config,
    cells: { ...config.cells, pool_size: 0 },
    // test-embed priced too: a user under a cap may make no unpriced call, the memory index's embeddings included.
    pricing: { local: { "test-model": { input: 1, output: 10 }, "test-embed": { input: 0, output: 0 } } },
  }),
});
h.model.respondWith(() => reply.text(ANSWER, { chunks: 24 }));
const server = h.model;

// In-process baselines on the same model server, with the same provider embeddings for recall.
const provider = createOpenAiProvider({ name: "bench", baseUrl: server.url, retry: { maxRetries: 0 } });
const tools = createToolBox({
  tools: [],
  allow: [],
  agent: "bench",
  pathPolicy: new PathPolicy(["/tmp"]),
  audit: new MemoryAuditLog(),
});
const messages = [{ role: "user" as const, content: "When is the launch?" }];
const brain = await createTestBrain({ baseUrl: server.url });
const runtime = await AgentRuntime.open(brain.root, {
  embedder: await OpenAiEmbedder.create({ baseUrl: server.url, model: "test-embed" }),
  workspace: brain.workspace,
  logger: createLogger("bench", { level: "silent" }),
  env: {},
});

// One user, one session, warm cell.
const token = await h.addUser("bench");
const call = api(h.url, token);
const first = (await (await call("POST", "/api/chat", { text: "hello" })).json()) as {
  data: { session_id: string };
};
const session = first.data.session_id;
const warden = async () => {
  const answer = (await (
    await call("POST", "/api/chat", { text: "When is the launch?", session_id: session })
  ).json()) as {
    data: { text: string };
  };
  if (answer.data.text !== ANSWER) throw new Error(`unexpected answer: ${JSON.stringify(answer)}`);
};
// A session that grows without bound would time history, not the turn: a fresh one every 50 turns.
let count = 0;
let runtimeSession: string | undefined;
const samples = await timeRounds(TURNS, [
  async () => {
    server.requests.length = 0;
    await runAgent(
      { sessionId: "bench", model: "test-model", systemPrompt: "You are a benchmark.", messages },
      { stream: provider.stream, tools },
    );
  },
  async () => {
    if (count++ % 50 === 0) runtimeSession = undefined;
    const turn = await runtime.runTurn({
      prompt: "When is the launch?",
      ...(runtimeSession ? { sessionId: runtimeSession } : {}),
    });
    runtimeSession = turn.sessionId;
  },
  warden,
]);
const [bare, inProcess, through] = samples.map((s) => summarise(s ?? []));

// The same turn for a user under caps (user and agent, large enough never to refuse) and for one without.
const cappedToken = await h.addUser("capped");
h.warden.context.budget.store.setCap({ kind: "user", user: "capped" }, "day", 1e12, "bench");
h.warden.context.budget.store.setCap(
  { kind: "agent", user: "capped", name: "assistant" },
  "month",
  1e12,
  "bench",
);
const cappedCall = api(h.url, cappedToken);
const cappedSession = (
  (await (await cappedCall("POST", "/api/chat", { text: "hello" })).json()) as {
    data: { session_id: string };
  }
).data.session_id;
const cappedTurn = async () => {
  const answer = (await (
    await cappedCall("POST", "/api/chat", { text: "When is the launch?", session_id: cappedSession })
  ).json()) as { data: { text: string } };
  if (answer.data.text !== ANSWER)
    throw new Error(`unexpected answer under a cap: ${JSON.stringify(answer)}`);
};
const [plainTurns, cappedTurns] = await timeRounds(TURNS, [warden, cappedTurn]);
const plainTurn = summarise(plainTurns ?? []);
const capTurn = summarise(cappedTurns ?? []);
const bookkeeping = await measureBudgetCost(TURNS * 10);
const p99 = (s: number[] | undefined) => percentile(s ?? [], 99);

// Many users at once: cold starts first (each user's cell), then every user's turns concurrently.
const users = await Promise.all(Array.from({ length: USERS }, (_, i) => h.addUser(`u${i}`)));
const coldStart: number[] = [];
for (const t of users) {
  const started = performance.now();
  await api(h.url, t)("POST", "/api/chat", { text: "hello" });
  coldStart.push(performance.now() - started);
}
const latencies: number[] = [];
const loadStart = performance.now();
await Promise.all(
  users.map(async (t) => {
    const c = api(h.url, t);
    for (let i = 0; i < PER_USER; i++) {
      const started = performance.now();
      const answer = (await (await c("POST", "/api/chat", { text: "When is the launch?" })).json()) as {
        data: { text: string };
      };
      if (answer.data.text !== ANSWER)
        throw new Error(`unexpected answer under load: ${JSON.stringify(answer)}`);
      latencies.push(performance.now() - started);
    }
  }),
);
const loadSeconds = (performance.now() - loadStart) / 1000;
const cells = h.warden.context.cells.manager.list();
const rss = await Promise.all(
  cells.map(async (c) => (await h.warden.context.cells.running(c.userId)?.stats())?.hostRssBytes ?? 0),
);
const mib = (b: number) => b / 1024 / 1024;
const load = summarise(latencies);
const cold = summarise(coldStart);

console.log(
  `\n${formatTable(
    ["turn", "p50 ms", "p95 ms", "p99 ms", "p50 ÷ runAgent", "p50 ÷ runtime turn"],
    [
      [
        "runAgent (bare loop, in process)",
        bare?.p50.toFixed(2) ?? "",
        bare?.p95.toFixed(2) ?? "",
        p99(samples[0]).toFixed(2),
        "1.00×",
        "-",
      ],
      [
        "AgentRuntime turn (recall, prompt)",
        inProcess?.p50.toFixed(2) ?? "",
        inProcess?.p95.toFixed(2) ?? "",
        p99(samples[1]).toFixed(2),
        `${((inProcess?.p50 ?? 0) / (bare?.p50 ?? 1)).toFixed(2)}×`,
        "1.00×",
      ],
      [
        "HTTP → warden → bwrap cell → proxy",
        through?.p50.toFixed(2) ?? "",
        through?.p95.toFixed(2) ?? "",
        p99(samples[2]).toFixed(2),
        `${((through?.p50 ?? 0) / (bare?.p50 ?? 1)).toFixed(2)}×`,
        `${((through?.p50 ?? 0) / (inProcess?.p50 ?? 1)).toFixed(2)}×`,
      ],
    ],
  )}\n`,
);
console.log(
  `${USERS} users × ${PER_USER} turns at once: p50 ${load.p50.toFixed(1)} ms, p95 ${load.p95.toFixed(1)} ms, p99 ${p99(latencies).toFixed(1)} ms, ` +
    `${(latencies.length / loadSeconds).toFixed(1)} turns/s; cold start to first answer p50 ${cold.p50.toFixed(0)} ms; ` +
    `${cells.length} warm cells, host RSS per cell ${mib(rss.reduce((a, b) => a + b, 0) / (rss.length || 1)).toFixed(1)} MiB (max ${mib(Math.max(...rss)).toFixed(1)})\n`,
);
console.log(
  `${formatTable(
    ["spend caps", "p50", "p95", "p99", "ratio"],
    [
      [
        "reserve + settle, no cap (µs/call)",
        (bookkeeping.uncapped.p50 * 1000).toFixed(1),
        (bookkeeping.uncapped.p95 * 1000).toFixed(1),
        (bookkeeping.uncapped.p99 * 1000).toFixed(1),
        "1.00×",
      ],
      [
        "reserve + settle, 4 caps (µs/call)",
        (bookkeeping.capped.p50 * 1000).toFixed(1),
        (bookkeeping.capped.p95 * 1000).toFixed(1),
        (bookkeeping.capped.p99 * 1000).toFixed(1),
        `${(bookkeeping.capped.p50 / (bookkeeping.uncapped.p50 || 1)).toFixed(2)}×`,
      ],
      [
        "warden turn, no cap (ms)",
        plainTurn.p50.toFixed(2),
        plainTurn.p95.toFixed(2),
        plainTurn.p99.toFixed(2),
        "1.00×",
      ],
      [
        "warden turn, user + agent caps (ms)",
        capTurn.p50.toFixed(2),
        capTurn.p95.toFixed(2),
        capTurn.p99.toFixed(2),
        `${(capTurn.p50 / (plainTurn.p50 || 1)).toFixed(2)}×`,
      ],
    ],
  )}\nbookkeeping under 4 caps is ${((bookkeeping.capped.p50 / (plainTurn.p50 || 1)) * 100).toFixed(2)} % of a turn's p50\n`,
);
const results = {
  node: process.version,
  turns: TURNS,
  single: {
    runAgent: bare,
    runtimeTurn: inProcess,
    warden: through,
    p99: { runAgent: p99(samples[0]), runtimeTurn: p99(samples[1]), warden: p99(samples[2]) },
  },
  budget: {
    bookkeepingMs: bookkeeping,
    turn: { uncapped: plainTurn, capped: capTurn, ratio: capTurn.p50 / (plainTurn.p50 || 1) },
  },
  concurrent: {
    users: USERS,
    perUser: PER_USER,
    latency: { ...load, p99: p99(latencies) },
    turnsPerSecond: latencies.length / loadSeconds,
    coldStart: cold,
    rssPerCellMiB: rss.map(mib),
  },
};
await mkdir(join(import.meta.dirname, "../results"), { recursive: true });
const out = join(
  import.meta.dirname,
  "../results",
  `warden-${new Date().toISOString().slice(0, 19).replace(/:/g, "")}.json`,
);
await writeFile(out, `${JSON.stringify(results, null, 2)}\n`);
console.log(`wrote ${out}`);
await runtime.close();
brain.remove();
await h.close();
