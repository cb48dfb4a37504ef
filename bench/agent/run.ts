// Agent benchmark: `node --import tsx bench/agent/run.ts [iterations]` (default 300).
// The model is the local test server answering at zero latency, so what is timed is the runtime itself: the
// provider's SSE parsing, the loop, tool dispatch (validation + audit) and, for full turns, recall and prompt
// assembly. Full turns run twice: with the built-in embedder a brain uses by default (word table, 128-d) and
// with the tests' 64-d word-hash embedder, which shows how much of a turn is embedding and vector search. Each
// row is compared with a bare fetch of exactly the same replies in the same run.
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import {
  AgentRuntime,
  createToolBox,
  defineTool,
  MemoryAuditLog,
  ok,
  PathPolicy,
  runAgent,
} from "../../src/agent/index.js";
import { createLogger, ironclawHome } from "../../src/core/index.js";
import { BuiltinEmbedder, type Embedder } from "../../src/memory/index.js";
import { createOpenAiProvider } from "../../src/providers/index.js";
import { type Reply, reply, startModelServer } from "../../test/support/model-server.js";
import { createTestBrain } from "../../test/support/test-brain.js";
import { WordHashEmbedder } from "../../test/support/word-hash-embedder.js";
import { formatTable, summarise, timeRounds } from "./timing.js";

const ITERATIONS = Number(process.argv[2] ?? 300);
const ANSWER =
  "The launch is on the fourteenth of March, and the notes say the venue is the old harbour hall.";
const textReply = () => reply.text(ANSWER, { chunks: 24 });
const toolReply = () => reply.toolCalls([{ name: "echo", arguments: { text: "ping" } }], { split: 4 });
const fileReply = () =>
  reply.toolCalls([{ name: "file", arguments: { action: "read", path: "identity.md" } }]);

const server = await startModelServer();
// Answers by conversation state, so every timed call gets the same reply as its baseline.
let script: (body: Record<string, unknown>) => Reply = () => textReply();
server.respondWith((body) => script(body));
const lastRole = (body: Record<string, unknown>) => (body.messages as Array<{ role: string }>).at(-1)?.role;

const provider = createOpenAiProvider({ name: "bench", baseUrl: server.url, retry: { maxRetries: 0 } });
const echo = defineTool({
  name: "echo",
  description: "returns its text",
  parameters: z.strictObject({ text: z.string() }),
  execute: async (args) => ok(args.text),
});
const tools = createToolBox({
  tools: [echo],
  allow: ["echo"],
  agent: "bench",
  pathPolicy: new PathPolicy(["/tmp"]),
  audit: new MemoryAuditLog(),
});
const messages = [{ role: "user" as const, content: "When is the launch?" }];
const context = { sessionId: "bench", model: "test-model", systemPrompt: "You are a benchmark.", messages };
const body = JSON.stringify({
  model: "test-model",
  messages,
  stream: true,
  stream_options: { include_usage: true },
});

async function bareFetch(): Promise<void> {
  const response = await fetch(`${server.url}/chat/completions`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body,
  });
  await response.text();
}

async function consume(stream: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of stream);
}

async function openRuntime(embedder: Embedder) {
  const brain = await createTestBrain({ baseUrl: server.url });
  const runtime = await AgentRuntime.open(brain.root, {
    embedder,
    workspace: brain.workspace,
    logger: createLogger("bench", { level: "silent" }),
    env: {},
  });
  await runtime.memory.remember("The launch venue is the old harbour hall.", { target: "memory" });
  return { brain, runtime };
}
const builtin = await openRuntime(await BuiltinEmbedder.load({ dataDir: ironclawHome() }));
const wordHash = await openRuntime(new WordHashEmbedder());

interface Case {
  name: string;
  baseline: string;
  script: typeof script;
  run: () => Promise<unknown>;
}
const textOnly = () => textReply();
const toolThenText = (b: Record<string, unknown>) => (lastRole(b) === "tool" ? textReply() : toolReply());
const fileThenText = (b: Record<string, unknown>) => (lastRole(b) === "tool" ? textReply() : fileReply());

const cases: Case[] = [
  { name: "bare fetch, 1 reply", baseline: "-", script: textOnly, run: bareFetch },
  {
    name: "provider stream, 1 reply",
    baseline: "bare fetch, 1 reply",
    script: textOnly,
    run: () => consume(provider.stream(context)),
  },
  {
    name: "runAgent text turn",
    baseline: "bare fetch, 1 reply",
    script: textOnly,
    run: () => runAgent(context, { stream: provider.stream, tools }),
  },
  {
    name: "bare fetch, tool call + answer",
    baseline: "-",
    script: toolThenText,
    run: async () => {
      script = () => toolReply();
      await bareFetch();
      script = () => textReply();
      await bareFetch();
    },
  },
  {
    name: "runAgent tool round trip",
    baseline: "bare fetch, tool call + answer",
    script: toolThenText,
    run: () => runAgent(context, { stream: provider.stream, tools }),
  },
  {
    name: "runtime turn, built-in embedder",
    baseline: "bare fetch, 1 reply",
    script: textOnly,
    run: () => builtin.runtime.runTurn({ prompt: "When is the launch?" }),
  },
  {
    name: "runtime turn + file tool, built-in",
    baseline: "bare fetch, tool call + answer",
    script: fileThenText,
    run: () => builtin.runtime.runTurn({ prompt: "Who am I?" }),
  },
  {
    name: "runtime turn, word-hash embedder",
    baseline: "bare fetch, 1 reply",
    script: textOnly,
    run: () => wordHash.runtime.runTurn({ prompt: "When is the launch?" }),
  },
  {
    name: "runtime turn + file tool, word-hash",
    baseline: "bare fetch, tool call + answer",
    script: fileThenText,
    run: () => wordHash.runtime.runTurn({ prompt: "Who am I?" }),
  },
];

// Cases take turns within each round, so load from elsewhere on the machine and JIT warm-up hit all alike.
const samples = await timeRounds(
  ITERATIONS,
  cases.map((c) => async () => {
    // The server records every request; dropping them keeps its heap (and GC pauses) from growing with the run.
    server.requests.length = 0;
    script = c.script;
    await c.run();
  }),
);
const rows = cases.map((c, i) => ({ name: c.name, baseline: c.baseline, ...summarise(samples[i] ?? []) }));

const byName = new Map(rows.map((r) => [r.name, r]));
const table = rows.map((r) => {
  const base = byName.get(r.baseline);
  const ratio = base ? `${(r.p50 / base.p50).toFixed(2)}×` : "1.00×";
  const overhead = base ? `${(r.p50 - base.p50).toFixed(3)}` : "-";
  return [r.name, r.mean.toFixed(3), r.p50.toFixed(3), r.p95.toFixed(3), ratio, overhead];
});
console.log(
  `\n${formatTable(["case", "mean ms", "p50 ms", "p95 ms", "p50 ÷ baseline", "overhead p50 ms"], table)}\n`,
);
const results = rows.map((r) => {
  const base = byName.get(r.baseline);
  return { ...r, ratioP50: base ? r.p50 / base.p50 : 1, overheadP50Ms: base ? r.p50 - base.p50 : 0 };
});
await mkdir(join(import.meta.dirname, "../results"), { recursive: true });
const out = join(
  import.meta.dirname,
  "../results",
  `agent-${new Date().toISOString().slice(0, 19).replace(/:/g, "")}.json`,
);
await writeFile(
  out,
  `${JSON.stringify({ node: process.version, iterations: ITERATIONS, results }, null, 2)}\n`,
);
console.log(`wrote ${out}`);

for (const { runtime, brain } of [builtin, wordHash]) {
  await runtime.close();
  brain.remove();
}
await server.close();
