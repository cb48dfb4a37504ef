// Memory benchmark:
//   node --import tsx bench/memory/run.ts [chunks…] [--dims 384,768|none] [--queries N] [--keep DIR]
//   node --import tsx bench/memory/run.ts --million [--keep DIR]     (opt-in; see README for how long it takes)
// Per corpus size (default 10000 and 100000): generates a corpus, indexes it with the built-in embedder (128-d), and
// times hybrid search, the approximate vector search and FTS, each beside its exact counterpart measured in the
// same run on the same queries (see brain-bench.ts); at 100k it also times the vector index alone on 384-d and
// 768-d vectors (projected-bench.ts). Prints each measure with its goal, recall@10 against exact, the ratio to the
// exact baseline and the load average; writes JSON to bench/results/. `--keep DIR` keeps each brain in DIR/<size>
// and reuses it on the next run (the corpus is rewritten identically, so only changed files are re-indexed).
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { ironclawHome } from "../../src/core/index.js";
import { BuiltinEmbedder, loadWordTable } from "../../src/memory/index.js";
import { type BrainResult, benchmarkBrain, CLASSES, LEGS } from "./brain-bench.js";
import { benchmarkProjected, type ProjectedResult } from "./projected-bench.js";
import { formatTable, type Latency, readLoadAverage } from "./stats.js";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    million: { type: "boolean" },
    dims: { type: "string" },
    queries: { type: "string" },
    keep: { type: "string" },
  },
});
const sizes = positionals.map(Number).filter((n) => n > 0);
const SIZES = values.million ? [1_000_000] : sizes.length > 0 ? sizes : [10_000, 100_000];
// The exact references scan every float per query (~1 s at a million), so the million run asks fewer questions.
const QUERIES = Number(values.queries ?? (values.million ? 50 : 200));
const dimsOption = values.dims ?? (values.million ? "none" : "384,768");
const DIMS = dimsOption === "none" ? [] : dimsOption.split(",").map(Number);
if (DIMS.some((d) => !(Number.isInteger(d) && d > 0)))
  throw new Error(`--dims: must be "none" or dimensions like 384,768`);

const embedder = await BuiltinEmbedder.load({ dataDir: ironclawHome() });
const { table } = await loadWordTable(ironclawHome());
// Content words: past the few hundred most frequent (function words), the next 30k.
const vocabulary = Array.from({ length: 30_000 }, (_, i) => table.wordAt(300 + i));
const loadAtStart = readLoadAverage();

const brains: BrainResult[] = [];
const projected: ProjectedResult[] = [];
for (const size of SIZES) {
  const keepDir = values.keep ? join(values.keep, String(size)) : undefined;
  // The projected runs need this size's stored vectors, so they run while the brain still exists.
  const dimsHere = size === 100_000 || SIZES.length === 1 ? DIMS : [];
  brains.push(
    await benchmarkBrain(size, {
      embedder,
      vocabulary,
      queriesPerClass: QUERIES,
      ...(keepDir ? { keepDir } : {}),
      ...(dimsHere.length > 0
        ? { after: (db: string, queries: Float32Array[]) => runProjected(db, size, queries, dimsHere) }
        : {}),
    }),
  );
}

/** The brain's own query vectors, 100 of them across both classes, projected like its stored vectors. */
async function runProjected(
  databaseFile: string,
  size: number,
  queryVectors: Float32Array[],
  dims: number[],
) {
  const step = Math.max(1, Math.floor(queryVectors.length / 100));
  const queries = queryVectors.filter((_, i) => i % step === 0).slice(0, 100);
  for (const d of dims) {
    process.stderr.write(`${size}: ${d}-d projected vectors…\n`);
    projected.push(await benchmarkProjected(databaseFile, queries, d));
  }
}

const formatLatency = (l: Latency) =>
  `${l.p50} / ${l.p99}${l.cpu ? ` (CPU ${l.cpu.p50} / ${l.cpu.p99})` : ""}`;
const formatRatio = (baseline: Latency, measured: Latency) =>
  `${Math.round((baseline.p50 / measured.p50) * 10) / 10}×`;
const formatMet = (ok: boolean | undefined) => (ok === undefined ? "" : ok ? "yes" : "NO");
const formatLoad = (l: { start: number[]; end: number[] }) => `${l.start[0]} → ${l.end[0]}`;
const describeSearchGoal = (chunks: number, l: Latency) =>
  chunks === 100_000
    ? (["p50 < 3 ms, p99 < 15 ms", formatMet(l.p50 < 3 && l.p99 < 15)] as const)
    : (["", ""] as const);
const describeRecallGoal = (chunks: number, recall: number) =>
  chunks >= 100_000 ? ` (goal ≥ 0.95: ${formatMet(recall >= 0.95)})` : "";

const rows: string[][] = [];
for (const r of brains) {
  const million = r.chunks >= 1_000_000;
  rows.push(
    [
      String(r.chunks),
      "vector search 128-d p50/p99 ms",
      formatLatency(r.latency.approximate),
      ...describeSearchGoal(r.chunks, r.latency.approximate),
      `${r.recallAt10.approximate}${describeRecallGoal(r.chunks, r.recallAt10.approximate)}`,
      `exact scan ${formatLatency(r.latency.exact)}`,
      formatRatio(r.latency.exact, r.latency.approximate),
      formatLoad(r.loadAverage),
    ],
    [
      String(r.chunks),
      "hybrid search p50/p99 ms",
      formatLatency(r.latency.hybrid),
      million ? "p50 < 20 ms" : "",
      million ? formatMet(r.latency.hybrid.p50 < 20) : "",
      String(r.recallAt10.hybrid),
      `exact-leg hybrid ${formatLatency(r.latency.hybridExact)}`,
      formatRatio(r.latency.hybridExact, r.latency.hybrid),
      formatLoad(r.loadAverage),
    ],
    [
      String(r.chunks),
      "FTS only p50/p99 ms",
      formatLatency(r.latency.fts),
      "",
      "",
      "exact",
      "",
      "",
      formatLoad(r.loadAverage),
    ],
    [
      String(r.chunks),
      "index, full pipeline (chunks/s)",
      r.index.reused ? "reused" : String(r.index.chunksPerSecond),
      million ? "≥ 5000" : "",
      million && !r.index.reused ? formatMet(r.index.chunksPerSecond >= 5000) : "",
      "",
      "",
      "",
      formatLoad(r.loadAverage),
    ],
    [
      String(r.chunks),
      `retrain ${r.vectorLists} lists (s; vectors/s)`,
      `${r.retrain.seconds}; ${r.retrain.vectorsPerSecond}`,
      "",
      "",
      "",
      "",
      "",
      formatLoad(r.loadAverage),
    ],
    [
      String(r.chunks),
      "1-file reindex p50/p99 ms",
      formatLatency(r.incremental),
      "",
      "",
      "",
      "",
      "",
      formatLoad(r.loadAverage),
    ],
  );
}
for (const p of projected) {
  rows.push(
    [
      String(p.vectors),
      `vector search ${p.dimensions}-d p50/p99 ms`,
      formatLatency(p.latency.approximate),
      ...describeSearchGoal(p.vectors, p.latency.approximate),
      `${p.recallAt10}${describeRecallGoal(p.vectors, p.recallAt10)}`,
      `exact scan ${formatLatency(p.latency.exact)}`,
      formatRatio(p.latency.exact, p.latency.approximate),
      formatLoad(p.loadAverage),
    ],
    [
      String(p.vectors),
      `vector inserts ${p.dimensions}-d (/s); retrain ${p.vectorLists} lists (s)`,
      `${p.insert.vectorsPerSecond}; ${p.retrain.seconds}`,
      "",
      "",
      "",
      "",
      "",
      formatLoad(p.loadAverage),
    ],
  );
}
const header = [
  "chunks",
  "measure",
  "figure",
  "goal",
  "met",
  "recall@10 vs exact",
  "exact baseline",
  "baseline÷figure p50",
  "load 1-min",
];
console.log(`\n${formatTable(header, rows)}\n`);
const quality = brains.flatMap((r) =>
  CLASSES.map((kind) => [
    String(r.chunks),
    kind,
    LEGS.map((leg) => r.quality[kind].precision[leg]).join(" / "),
  ]),
);
console.log(`${formatTable(["chunks", "queries", `topic P@10 ${LEGS.join("/")}`], quality)}\n`);
console.log(`load average (1/5/15 min): start ${loadAtStart.join(" ")}, end ${readLoadAverage().join(" ")}`);

const dir = join(import.meta.dirname, "../results");
await mkdir(dir, { recursive: true });
const out = join(dir, `memory-${new Date().toISOString().slice(0, 19).replace(/:/g, "")}.json`);
const meta = {
  node: process.version,
  embedder: embedder.model,
  queriesPerClass: QUERIES,
  loadAverage: { start: loadAtStart, end: readLoadAverage() },
};
await writeFile(out, `${JSON.stringify({ ...meta, brains, projected }, null, 2)}\n`);
console.log(`wrote ${out}`);
