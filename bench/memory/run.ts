// Memory benchmark: `node --import tsx bench/memory/run.ts [chunks…]` (default 10000 100000).
// Per size: generates a corpus, indexes it with the built-in embedder, then in the same run times hybrid recall
// against a brute-force JS cosine scan and FTS-only search, judges all three by topic precision, and times a
// one-file incremental reindex. Prints a table and writes JSON to bench/results/.
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
import { chunkKeys, editOneSection, loadMatrix, topByScan } from "./baseline.js";
import { writeCorpus } from "./corpus.js";
import { formatTable, percentile, timeEach } from "./stats.js";

const sizes = process.argv
  .slice(2)
  .map(Number)
  .filter((n) => n > 0);
const SIZES = sizes.length > 0 ? sizes : [10_000, 100_000];
const QUERIES = 300;
const TOP_K = 10;

const embedder = await BuiltinEmbedder.load({ dataDir: ironclawHome() });
const { table } = await loadWordTable(ironclawHome());
// Content words: past the few hundred most frequent (function words), the next 30k.
const vocabulary = Array.from({ length: 30_000 }, (_, i) => table.wordAt(300 + i));
const ms = (n: number) => Math.round(n * 100) / 100;

const results = [];
for (const size of SIZES) results.push(await benchmark(size));

const header = [
  "chunks",
  "index chunks/s",
  "hybrid p50/p99 ms",
  "brute-force p50/p99 ms",
  "FTS-only p50/p99 ms",
  "brute÷hybrid, FTS÷hybrid (p50)",
  "topic P@10 hybrid/brute/FTS",
  "vector overlap@10",
  "1-file reindex p50/p99 ms",
];
const rows = results.map((r) => [
  String(r.chunks),
  String(r.index.chunksPerSecond),
  `${r.latency.hybrid.p50} / ${r.latency.hybrid.p99}`,
  `${r.latency.bruteForce.p50} / ${r.latency.bruteForce.p99}`,
  `${r.latency.ftsOnly.p50} / ${r.latency.ftsOnly.p99}`,
  `${r.ratios.bruteOverHybrid}× / ${r.ratios.ftsOverHybrid}×`,
  `${r.topicPrecision.hybrid} / ${r.topicPrecision.bruteForce} / ${r.topicPrecision.ftsOnly}`,
  String(r.vectorOverlapAt10),
  `${r.incremental.oneFileP50} / ${r.incremental.oneFileP99}`,
]);
console.log(`\n${formatTable(header, rows)}\n`);
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
    const lists = store.vectors(embedder).listCount();
    process.stderr.write(
      `${size}: indexed ${report.chunksAdded} chunks in ${indexSeconds.toFixed(1)} s, ${lists} vector list(s)\n`,
    );

    // Queries: three words of a section's topic and one unrelated word; relevant = same topic.
    const random = seededRandom(size + 1);
    const keys = [...corpus.topicOf.keys()];
    const queries = Array.from({ length: QUERIES }, () => {
      const topic = corpus.topicOf.get(keys[Math.floor(random() * keys.length)] as string) as number;
      const words = corpus.topicWords[topic] as string[];
      const pick = () => words[Math.floor(random() * words.length)] as string;
      return {
        text: `${pick()} ${pick()} ${pick()} ${vocabulary[Math.floor(random() * vocabulary.length)]}`,
        topic,
      };
    });

    const search = new HybridSearch(store, embedder);
    const matrix = loadMatrix(store, embedder);
    const keyOf = chunkKeys(store);
    const brute = (text: string) => topByScan(matrix, embedder.embedText(text), TOP_K);
    const hybridTimes = await timeEach(queries, (q) => search.search(q.text, { topK: TOP_K }));
    const bruteTimes = await timeEach(queries, (q) => brute(q.text));
    const ftsTimes = await timeEach(queries, (q) => search.search(q.text, { topK: TOP_K, mode: "lexical" }));

    const precision = { hybrid: 0, bruteForce: 0, ftsOnly: 0 };
    let overlap = 0;
    const relevant = (key: string | undefined, topic: number) =>
      key !== undefined && corpus.topicOf.get(key) === topic ? 1 : 0;
    for (const q of queries) {
      const exact = brute(q.text);
      const hits = await search.search(q.text, { topK: TOP_K });
      const fts = await search.search(q.text, { topK: TOP_K, mode: "lexical" });
      precision.hybrid +=
        hits.reduce((n, h) => n + relevant(`${h.path}#${h.headings.at(-1)}`, q.topic), 0) / TOP_K;
      precision.bruteForce += exact.reduce((n, r) => n + relevant(keyOf.get(r), q.topic), 0) / TOP_K;
      precision.ftsOnly +=
        fts.reduce((n, h) => n + relevant(`${h.path}#${h.headings.at(-1)}`, q.topic), 0) / TOP_K;
      const approximate = store.vectors(embedder).search(embedder.embedText(q.text), TOP_K);
      overlap += approximate.filter((h) => exact.includes(h.rowid)).length / TOP_K;
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
    store.close();
    const latency = (t: number[]) => ({ p50: ms(percentile(t, 50)), p99: ms(percentile(t, 99)) });
    return {
      chunks: report.chunksAdded,
      files: corpus.files.length,
      vectorLists: lists,
      index: { seconds: ms(indexSeconds), chunksPerSecond: Math.round(report.chunksAdded / indexSeconds) },
      latency: { hybrid: latency(hybridTimes), bruteForce: latency(bruteTimes), ftsOnly: latency(ftsTimes) },
      ratios: {
        bruteOverHybrid: ms(percentile(bruteTimes, 50) / percentile(hybridTimes, 50)),
        ftsOverHybrid: ms(percentile(ftsTimes, 50) / percentile(hybridTimes, 50)),
      },
      topicPrecision: {
        hybrid: ms(precision.hybrid / QUERIES),
        bruteForce: ms(precision.bruteForce / QUERIES),
        ftsOnly: ms(precision.ftsOnly / QUERIES),
      },
      vectorOverlapAt10: ms(overlap / QUERIES),
      incremental: {
        oneFileP50: ms(percentile(incremental, 50)),
        oneFileP99: ms(percentile(incremental, 99)),
      },
    };
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}
