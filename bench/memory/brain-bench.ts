// One corpus size of the memory benchmark: generate, index with the built-in embedder, then time and judge every
// leg on the same queries. Each approximate leg is compared with its exact counterpart in the same run: the vector
// index against sqlite-vec's scan of every stored float, hybrid search against hybrid search whose vector leg is
// that exact scan (a second connection with `exact` tuning).
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  BrainLayout,
  type BuiltinEmbedder,
  HybridSearch,
  Indexer,
  IndexStore,
  type SearchHit,
  seededRandom,
} from "../../src/memory/index.js";
import { editOneSection, writeCorpus } from "./corpus.js";
import { type BenchQuery, lexicalQueries, paraphraseQueries, type QueryClass } from "./queries.js";
import {
  type Latency,
  measureRecall,
  ms,
  readLoadAverage,
  summariseLatency,
  timeAndKeep,
  timeEach,
} from "./stats.js";

export const LEGS = ["hybrid", "hybridExact", "approximate", "exact", "fts"] as const;
export type Leg = (typeof LEGS)[number];
export const CLASSES: QueryClass[] = ["lexical", "paraphrase"];
const TOP_K = 10;

export interface BrainResult {
  chunks: number;
  files: number;
  vectorLists: number;
  kernel: string;
  loadAverage: { start: number[]; end: number[] };
  index: { seconds: number; chunksPerSecond: number; reused: boolean };
  retrain: { seconds: number; vectorsPerSecond: number };
  latency: Record<Leg, Latency>;
  /** recall@10 against the exact counterpart: approximate vs exact, hybrid vs hybridExact. */
  recallAt10: { approximate: number; hybrid: number };
  quality: Record<QueryClass, { precision: Record<Leg, number> }>;
  incremental: Latency;
}

export async function benchmarkBrain(
  size: number,
  setup: {
    embedder: BuiltinEmbedder;
    vocabulary: string[];
    queriesPerClass: number;
    keepDir?: string;
    /** Runs on the indexed brain before it is closed (and deleted), with the query vectors. */
    after?: (databaseFile: string, queryVectors: Float32Array[]) => Promise<void>;
  },
): Promise<BrainResult> {
  const { embedder, vocabulary } = setup;
  const start = readLoadAverage();
  const root = setup.keepDir ?? (await mkdtemp(join(tmpdir(), `ironclaw-bench-${size}-`)));
  await mkdir(root, { recursive: true });
  // A kept brain already holds this corpus: the files are not rewritten, so indexing finds nothing to do.
  const kept = setup.keepDir !== undefined && existsSync(join(root, "db"));
  try {
    const corpus = await writeCorpus(root, {
      chunks: size,
      sectionsPerFile: 10,
      vocabulary,
      topicCount: 500,
      seed: size,
      write: !kept,
    });
    const brain = BrainLayout.open(root);
    const store = IndexStore.open(brain.databaseFile);
    const indexer = new Indexer(brain, store, embedder);
    const reused = kept && store.embedderMatches(embedder) && store.chunkCount() >= size;
    const started = performance.now();
    const report = await indexer.indexAll();
    const indexSeconds = (performance.now() - started) / 1000;
    const vectors = store.vectors(embedder);
    // Retraining every list, timed on its own: what each doubling of the index costs.
    const retrainStart = performance.now();
    vectors.rebuild(vectors.listCount() > 1 ? vectors.listCount() : 0);
    const retrainSeconds = (performance.now() - retrainStart) / 1000;
    process.stderr.write(
      `${size}: indexed ${store.chunkCount()} chunks in ${indexSeconds.toFixed(1)} s${reused ? " (reused)" : ""}, ` +
        `${vectors.listCount()} list(s) retrained in ${retrainSeconds.toFixed(1)} s\n`,
    );

    const queries: BenchQuery[] = [
      ...lexicalQueries(corpus, vocabulary, seededRandom(size + 1), setup.queriesPerClass),
      ...paraphraseQueries(corpus, vocabulary, embedder, seededRandom(size + 2), setup.queriesPerClass),
    ];
    // Embedded once: the two vector legs time the search alone, on identical vectors.
    const queryVectors = new Map(queries.map((q) => [q.text, embedder.embedText(q.text)]));
    const vectorOf = (q: BenchQuery) => queryVectors.get(q.text) as Float32Array;
    const search = new HybridSearch(store, embedder);
    const exactStore = IndexStore.open(brain.databaseFile, { tuning: { exact: true } });
    const exactSearch = new HybridSearch(exactStore, embedder);
    const keyOf = (c: { path: string; headings: string[] }) => `${c.path}#${c.headings.at(-1) ?? ""}`;
    const rowKeys = (rowids: number[]) => store.chunksByRowid(rowids).map(keyOf);
    const keys = (hits: SearchHit[]) => hits.map(keyOf);
    // What is timed: each leg's search as a caller makes it (hybrid and FTS also fetch the chunks they return).
    const legs: Record<Leg, (q: BenchQuery) => Promise<string[]> | string[]> = {
      hybrid: async (q) => keys(await search.search(q.text, { topK: TOP_K })),
      hybridExact: async (q) => keys(await exactSearch.search(q.text, { topK: TOP_K })),
      approximate: (q) => rowKeys(vectors.search(vectorOf(q), TOP_K).map((h) => h.rowid)),
      exact: (q) => rowKeys(vectors.searchExact(vectorOf(q), TOP_K).map((h) => h.rowid)),
      fts: async (q) => keys(await search.search(q.text, { topK: TOP_K, mode: "lexical" })),
    };
    const latency = {} as Record<Leg, Latency>;
    const ranked = {} as Record<Leg, string[][]>;
    for (const leg of LEGS) {
      const run = await timeAndKeep(queries, legs[leg]);
      latency[leg] = summariseLatency(run.times, run.cpuTimes);
      ranked[leg] = run.results;
    }
    exactStore.close();

    const quality = {} as BrainResult["quality"];
    for (const kind of CLASSES) {
      const picked = queries.flatMap((q, i) => (q.kind === kind ? [i] : []));
      const precision = {} as Record<Leg, number>;
      for (const leg of LEGS) {
        const hits = picked.map((i) =>
          (ranked[leg][i] ?? []).filter((k) => corpus.topicOf.get(k) === queries[i]?.topic),
        );
        precision[leg] = ms(hits.reduce((sum, h) => sum + h.length / TOP_K, 0) / picked.length);
      }
      quality[kind] = { precision };
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
    await setup.after?.(brain.databaseFile, [...queryVectors.values()]);
    const result: BrainResult = {
      chunks: store.chunkCount(),
      files: corpus.files.length,
      vectorLists: vectors.listCount(),
      kernel: vectors.kernelKind(),
      loadAverage: { start, end: readLoadAverage() },
      index: {
        seconds: ms(indexSeconds),
        chunksPerSecond: Math.round(report.chunksAdded / indexSeconds),
        reused,
      },
      retrain: {
        seconds: ms(retrainSeconds),
        vectorsPerSecond: Math.round(store.chunkCount() / retrainSeconds),
      },
      latency,
      recallAt10: {
        approximate: measureRecall(ranked.approximate, ranked.exact),
        hybrid: measureRecall(ranked.hybrid, ranked.hybridExact),
      },
      quality,
      incremental: summariseLatency(incremental),
    };
    store.close();
    return result;
  } finally {
    if (!setup.keepDir) await rm(root, { recursive: true, force: true });
  }
}
