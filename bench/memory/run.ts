// Memory benchmark: `node --import tsx bench/memory/run.ts [chunks…]` (default 10000 100000).
// Per size: generates a corpus and indexes it with the built-in embedder. Then, in the same run and with the same
// query vectors, it times hybrid recall, the approximate vector search, vec0's exact scan (the baseline: the same
// C code reading every vector) and FTS-only search, on two query classes: lexical (the topic's own words) and
// paraphrase (the embedder's near-synonyms, no word shared with the answer). It judges every leg by topic
// precision@10 per class, reports recall@10 of the approximate index against the exact scan, and times a
// one-file incremental reindex. Prints tables and writes JSON to bench/results/.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { ironclawHome } from "../../src/core/index.js";
import {
  BrainLayout,
  BuiltinEmbedder,
  HybridSearch,
  Indexer,
  IndexStore,
  loadWordTable,
  seededRandom,
} from "../../src/memory/index.js";
import { percentile } from "../percentile.js";
import { editOneSection, writeCorpus } from "./corpus.js";
import { type BenchQuery, lexicalQueries, paraphraseQueries, type QueryClass } from "./queries.js";
import { formatTable, timeEach } from "./stats.js";

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
const SIZES = sizes.length > 0 ? sizes : [10_000, 100_000];
const QUERIES_PER_CLASS = 200;
const TOP_K = 10;
const LEGS = ["hybrid", "approximate", "exact", "fts"] as const;
type Leg = (typeof LEGS)[number];
const CLASSES: QueryClass[] = ["lexical", "paraphrase"];

const embedder = await BuiltinEmbedder.load({ dataDir: ironclawHome() });
const { table } = await loadWordTable(ironclawHome());
// Content words: past the few hundred most frequent (function words), the next 30k.
const vocabulary = Array.from({ length: 30_000 }, (_, i) => table.wordAt(300 + i));
const ms = (n: number) => Math.round(n * 100) / 100;

const results = [];
for (const size of SIZES) results.push(await benchmark(size));

const p = (l: { p50: number; p99: number }) => `${l.p50} / ${l.p99}`;
const speed = results.map((r) => [
  String(r.chunks),
  String(r.index.chunksPerSecond),
  ...LEGS.map((leg) => p(r.latency[leg])),
  `${r.ratios.exactOverApproximate}×`,
  `${r.ratios.ftsOverHybrid}×`,
  p(r.incremental),
]);
console.log(
  `\n${formatTable(
    [
      "chunks",
      "index chunks/s",
      ...LEGS.map((leg) => `${leg} p50/p99 ms`),
      "exact÷approx p50",
      "FTS÷hybrid p50",
      "1-file reindex p50/p99 ms",
    ],
    speed,
  )}\n`,
);
const quality = results.flatMap((r) =>
  CLASSES.map((kind) => [
    String(r.chunks),
    kind,
    LEGS.map((leg) => r.quality[kind].precision[leg]).join(" / "),
    String(r.quality[kind].approximateRecallAt10),
  ]),
);
console.log(
  `${formatTable(["chunks", "queries", "topic P@10 hybrid/approx/exact/FTS", "approx recall@10"], quality)}\n`,
);
const dir = join(import.meta.dirname, "../results");
await mkdir(dir, { recursive: true });
const out = join(dir, `memory-${new Date().toISOString().slice(0, 19).replace(/:/g, "")}.json`);
const meta = { node: process.version, embedder: embedder.model, loadAverage: loadavg().map(ms) };
await writeFile(out, `${JSON.stringify({ ...meta, results }, null, 2)}\n`);
console.log(`wrote ${out}`);

async function benchmark(size: number) {
  const root = await mkdtemp(join(tmpdir(), `ironclaw-bench-${size}-`));
  try {
    const corpus = await writeCorpus(root, {
      chunks: size,
      sectionsPerFile: 10,
      vocabulary,
      topicCount: 500,
      seed: size,
    });
    const brain = BrainLayout.open(root);
    const store = IndexStore.open(brain.databaseFile);
    const indexer = new Indexer(brain, store, embedder);
    const started = performance.now();
    const report = await indexer.indexAll();
    const indexSeconds = (performance.now() - started) / 1000;
    const vectors = store.vectors(embedder);
    process.stderr.write(
      `${size}: indexed ${report.chunksAdded} chunks in ${indexSeconds.toFixed(1)} s, ` +
        `${vectors.listCount()} vector list(s)\n`,
    );

    const queries: BenchQuery[] = [
      ...lexicalQueries(corpus, vocabulary, seededRandom(size + 1), QUERIES_PER_CLASS),
      ...paraphraseQueries(corpus, vocabulary, embedder, seededRandom(size + 2), QUERIES_PER_CLASS),
    ];
    // Embedded once: the two vector legs time the search alone, on identical vectors.
    const queryVectors = new Map(queries.map((q) => [q.text, embedder.embedText(q.text)]));
    const vectorOf = (q: BenchQuery) => queryVectors.get(q.text) as Float32Array;
    const search = new HybridSearch(store, embedder);
    // What is timed: each leg's search as a caller makes it (hybrid and FTS also fetch the chunks they return).
    const timed: Record<Leg, (q: BenchQuery) => unknown> = {
      hybrid: (q) => search.search(q.text, { topK: TOP_K }),
      approximate: (q) => vectors.search(vectorOf(q), TOP_K),
      exact: (q) => vectors.searchExact(vectorOf(q), TOP_K),
      fts: (q) => search.search(q.text, { topK: TOP_K, mode: "lexical" }),
    };
    const times = {} as Record<Leg, number[]>;
    for (const leg of LEGS) times[leg] = await timeEach(queries, timed[leg]);

    // What is judged: the `path#heading` of each hit, whose topic the corpus knows.
    const keyOf = (c: { path: string; headings: string[] }) => `${c.path}#${c.headings.at(-1) ?? ""}`;
    const rowKeys = (rowids: number[]) => store.chunksByRowid(rowids).map(keyOf);
    const ranked: Record<Leg, (q: BenchQuery) => Promise<string[]>> = {
      hybrid: async (q) => (await search.search(q.text, { topK: TOP_K })).map(keyOf),
      approximate: async (q) => rowKeys(vectors.search(vectorOf(q), TOP_K).map((h) => h.rowid)),
      exact: async (q) => rowKeys(vectors.searchExact(vectorOf(q), TOP_K).map((h) => h.rowid)),
      fts: async (q) => (await search.search(q.text, { topK: TOP_K, mode: "lexical" })).map(keyOf),
    };
    const quality = {} as Record<QueryClass, Judgement>;
    for (const kind of CLASSES) {
      quality[kind] = await judge(
        queries.filter((q) => q.kind === kind),
        ranked,
        (key) => corpus.topicOf.get(key),
      );
    }

    let stamp = 0;
    const incremental = await timeEach(
      corpus.files.slice(0, 60),
      async (path) => {
        await editOneSection(join(root, path), stamp++);
        const r = await indexer.indexPaths([path]);
        if (r.chunksAdded !== 1 || r.chunksRemoved !== 1)
          throw new Error(`one chunk should change: ${JSON.stringify(r)}`);
      },
      5,
    );
    const vectorLists = vectors.listCount();
    store.close();
    const latency = (t: number[]) => ({ p50: ms(percentile(t, 50)), p99: ms(percentile(t, 99)) });
    const p50 = (leg: Leg) => percentile(times[leg], 50);
    return {
      chunks: report.chunksAdded,
      files: corpus.files.length,
      vectorLists,
      queries: {
        perClass: QUERIES_PER_CLASS,
        examples: CLASSES.map((k) => queries.find((q) => q.kind === k)),
      },
      index: { seconds: ms(indexSeconds), chunksPerSecond: Math.round(report.chunksAdded / indexSeconds) },
      latency: {
        hybrid: latency(times.hybrid),
        approximate: latency(times.approximate),
        exact: latency(times.exact),
        fts: latency(times.fts),
      },
      ratios: {
        exactOverApproximate: ms(p50("exact") / p50("approximate")),
        ftsOverHybrid: ms(p50("fts") / p50("hybrid")),
      },
      quality,
      incremental: latency(incremental),
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

interface Judgement {
  /** Share of each leg's top 10 that is about the query's topic. */
  precision: Record<Leg, number>;
  /** Share of the exact scan's top 10 that the approximate index also returns. */
  approximateRecallAt10: number;
}

async function judge(
  queries: BenchQuery[],
  ranked: Record<Leg, (q: BenchQuery) => Promise<string[]>>,
  topicOf: (key: string) => number | undefined,
): Promise<Judgement> {
  const precision: Record<Leg, number> = { hybrid: 0, approximate: 0, exact: 0, fts: 0 };
  let recall = 0;
  for (const q of queries) {
    const hits = {} as Record<Leg, string[]>;
    for (const leg of LEGS) {
      hits[leg] = await ranked[leg](q);
      precision[leg] += hits[leg].filter((k) => topicOf(k) === q.topic).length / TOP_K;
    }
    recall += hits.approximate.filter((k) => hits.exact.includes(k)).length / Math.max(1, hits.exact.length);
  }
  const mean = (n: number) => ms(n / queries.length);
  return {
    precision: {
      hybrid: mean(precision.hybrid),
      approximate: mean(precision.approximate),
      exact: mean(precision.exact),
      fts: mean(precision.fts),
    },
    approximateRecallAt10: mean(recall),
  };
}
