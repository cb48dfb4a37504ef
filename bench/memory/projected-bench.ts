// The vector index alone at a provider embedder's dimension (384, 768). No offline model here produces such
// vectors, so they are made from the built-in embedder's: each 128-d vector times a fixed random Gaussian matrix
// (which keeps inner products, Johnson–Lindenstrauss), plus independent noise so the result spans every dimension,
// normalised. Neighbourhoods stay those of real text; cost is that of the wider vectors. Queries likewise.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { IndexStore, normaliseVector, seededRandom } from "../../src/memory/index.js";
import { type Latency, measureRecall, ms, readLoadAverage, summariseLatency, timeAndKeep } from "./stats.js";

export interface ProjectedResult {
  dimensions: number;
  vectors: number;
  queries: number;
  vectorLists: number;
  loadAverage: { start: number[]; end: number[] };
  insert: { seconds: number; vectorsPerSecond: number };
  retrain: { seconds: number };
  latency: { approximate: Latency; exact: Latency };
  recallAt10: number;
}

/** Noise per dimension, relative to the projected signal's: enough to fill the extra dimensions, not to drown it. */
const NOISE = 0.35;

export async function benchmarkProjected(
  sourceDb: string,
  queries: Float32Array[],
  dimensions: number,
): Promise<ProjectedResult> {
  const start = readLoadAverage();
  const dir = await mkdtemp(join(tmpdir(), `ironclaw-bench-${dimensions}d-`));
  const project = makeProjector(128, dimensions, seededRandom(dimensions));
  const store = IndexStore.open(join(dir, "vectors.db"));
  try {
    const space = { id: "projected", model: `builtin-gaussian-${dimensions}`, dimensions };
    store.useEmbedder(space);
    const index = store.vectors(space);
    const source = new Database(sourceDb, { readonly: true });
    const rows = source.prepare<[], { rowid: number; embedding: Buffer }>(
      "SELECT rowid, embedding FROM chunk_vectors",
    );
    let count = 0;
    let insertMs = 0;
    // Projected in batches outside the timed part: the projection costs more than the insert it feeds.
    const batch: Array<[number, Float32Array]> = [];
    const flush = () => {
      const started = performance.now();
      store.read(() => {
        for (const [rowid, vector] of batch) index.insert(rowid, vector);
      });
      insertMs += performance.now() - started;
      count += batch.length;
      batch.length = 0;
    };
    for (const row of rows.iterate()) {
      const base = new Float32Array(Uint8Array.from(row.embedding).buffer);
      batch.push([Number(row.rowid), project(base)]);
      if (batch.length === 1000) flush();
    }
    flush();
    const insertSeconds = insertMs / 1000;
    source.close();
    const retrainStart = performance.now();
    index.rebalance(count);
    const retrainSeconds = (performance.now() - retrainStart) / 1000;
    const projectedQueries = queries.map(project);
    const approximate = await timeAndKeep(projectedQueries, (q) => index.search(q, 10).map((h) => h.rowid));
    const exact = await timeAndKeep(projectedQueries, (q) => index.searchExact(q, 10).map((h) => h.rowid));
    return {
      dimensions,
      vectors: count,
      queries: queries.length,
      vectorLists: index.listCount(),
      loadAverage: { start, end: readLoadAverage() },
      insert: { seconds: ms(insertSeconds), vectorsPerSecond: Math.round(count / insertSeconds) },
      retrain: { seconds: ms(retrainSeconds) },
      latency: {
        approximate: summariseLatency(approximate.times, approximate.cpuTimes),
        exact: summariseLatency(exact.times, exact.cpuTimes),
      },
      recallAt10: measureRecall(approximate.results, exact.results),
    };
  } finally {
    store.close();
    await rm(dir, { recursive: true, force: true });
  }
}

/** `v ↦ normalise(P·v + noise)` with a fixed Gaussian P; the noise is seeded too, so runs repeat exactly. */
function makeProjector(from: number, to: number, random: () => number): (v: Float32Array) => Float32Array {
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const matrix = Float32Array.from({ length: to * from }, () => gaussian() / Math.sqrt(to));
  const noiseScale = NOISE / Math.sqrt(to);
  return (v) => {
    const out = new Float32Array(to);
    for (let i = 0; i < to; i++) {
      let sum = 0;
      for (let j = 0; j < from; j++) sum += (matrix[i * from + j] as number) * (v[j] as number);
      out[i] = sum + gaussian() * noiseScale;
    }
    return normaliseVector(out);
  };
}
