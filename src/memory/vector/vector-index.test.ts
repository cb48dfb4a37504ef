import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { afterEach, describe, expect, it } from "vitest";
import { makeTempBrain, type TempBrain } from "../../../test/support/memory-fixtures.js";
import { normaliseVector } from "../embedders/embedder.js";
import { IndexStore } from "../index/index-store.js";
import { seededRandom } from "./kmeans.js";
import { vectorBlob } from "./vector-blob.js";
import type { VectorIndex, VectorIndexTuning } from "./vector-index.js";

const DIMS = 32;
// Small lists so a test-sized index gets many of them.
const TUNING: Partial<VectorIndexTuning> = { minVectorsForLists: 1000, vectorsPerList: 50 };
const space = { id: "test", model: "clusters", dimensions: DIMS };

/** Unit vectors scattered around `centres` random centres, like the topics of a brain. */
function makeClusteredVectors(count: number, centres: number, seed = 7): Float32Array[] {
  const random = seededRandom(seed);
  const noise = () => random() - 0.5;
  const middles = Array.from({ length: centres }, () =>
    normaliseVector(Float32Array.from({ length: DIMS }, noise)),
  );
  return Array.from({ length: count }, (_, i) => {
    const centre = middles[i % centres] as Float32Array;
    return normaliseVector(centre.map((v) => v + noise() * 0.6));
  });
}

/** A query makeQueryBetween two stored vectors: its neighbours spread over several lists, as a short question's do. */
function makeQueryBetween(vectors: Float32Array[], q: number): Float32Array {
  const [a, b] = [vectors[q * 7] as Float32Array, vectors[q * 7 + 3] as Float32Array];
  return normaliseVector(a.map((x, d) => x + 0.8 * (b[d] as number)));
}

function findExactTop(vectors: Array<Float32Array | undefined>, query: Float32Array, k: number): number[] {
  return vectors
    .flatMap((v, i) =>
      v ? [{ rowid: i + 1, score: v.reduce((s, x, d) => s + x * (query[d] as number), 0) }] : [],
    )
    .sort((a, b) => b.score - a.score)
    .slice(0, k)
    .map((r) => r.rowid);
}

function insertVectors(index: VectorIndex, vectors: Float32Array[], firstRowid = 1): void {
  for (const [i, v] of vectors.entries()) index.insert(firstRowid + i, v);
}

function measureRecallAt10(index: VectorIndex, vectors: Float32Array[], queries: Float32Array[]): number {
  let found = 0;
  for (const query of queries) {
    const exact = new Set(findExactTop(vectors, query, 10));
    found += index.search(query, 10).filter((h) => exact.has(h.rowid)).length;
  }
  return found / (queries.length * 10);
}

let temp: TempBrain;
const stores: IndexStore[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) s.close();
  await temp?.cleanup();
});

async function open(tuning: Partial<VectorIndexTuning> = TUNING) {
  temp = await makeTempBrain();
  return connectAgain(tuning);
}

function connectAgain(tuning: Partial<VectorIndexTuning> = TUNING) {
  const store = IndexStore.open(temp.brain.databaseFile, { tuning });
  stores.push(store);
  store.useEmbedder(space);
  return store.vectors(space);
}

describe("vector index", () => {
  it("finds the exact neighbours with exact similarities while small", async () => {
    const index = await open();
    const vectors = makeClusteredVectors(300, 6);
    insertVectors(index, vectors);
    const query = vectors[17] as Float32Array;
    expect(index.search(query, 10).map((h) => h.rowid)).toEqual(findExactTop(vectors, query, 10));
    expect(index.search(query, 1)[0]?.similarity).toBeCloseTo(1, 5);
    expect(index.searchExact(query, 10).map((h) => h.rowid)).toEqual(findExactTop(vectors, query, 10));
    expect(index.listCount()).toBe(1);
  });

  it("agrees with the exact top 10 at least 95 % of the time once the vectors are in lists", async () => {
    const index = await open();
    const vectors = makeClusteredVectors(6000, 40);
    insertVectors(index, vectors);
    expect(index.rebalance(vectors.length)).toBe(true);
    expect(index.listCount()).toBe(6000 / 50);
    const queries = Array.from({ length: 100 }, (_, q) => makeQueryBetween(vectors, q));
    expect(measureRecallAt10(index, vectors, queries)).toBeGreaterThanOrEqual(0.95);
    expect(index.rebalance(vectors.length)).toBe(false);
  });

  it("scores only the nearest lists: with a tiny probe share it misses neighbours the exact scan finds", async () => {
    const index = await open({ ...TUNING, probeShare: 0.01, minProbes: 1 });
    const vectors = makeClusteredVectors(6000, 40);
    insertVectors(index, vectors);
    index.rebalance(vectors.length);
    const queries = Array.from({ length: 50 }, (_, q) => makeQueryBetween(vectors, q));
    for (const query of queries.slice(0, 5)) {
      expect(index.searchExact(query, 10).map((h) => h.rowid)).toEqual(findExactTop(vectors, query, 10));
    }
    expect(measureRecallAt10(index, vectors, queries)).toBeLessThan(0.9);
  });

  it.each([
    ["one list", false],
    ["k-means lists", true],
  ])("shows inserts, deletes and updates in the next search (%s)", async (_, lists) => {
    {
      const index = await open();
      const vectors: Array<Float32Array | undefined> = makeClusteredVectors(2000, 20);
      insertVectors(index, vectors as Float32Array[]);
      if (lists) index.rebalance(2000);
      const query = vectors[100] as Float32Array;
      expect(index.search(query, 1)[0]?.rowid).toBe(101);
      index.delete(101);
      expect(index.search(query, 10).map((h) => h.rowid)).not.toContain(101);
      const moved = vectors[500] as Float32Array;
      index.insert(7, moved); // rowid 7 now holds another vector
      vectors[6] = moved;
      expect(
        index
          .search(moved, 2)
          .map((h) => h.rowid)
          .sort(),
      ).toEqual([501, 7].sort());
      index.insert(5000, query); // a new row
      vectors[100] = undefined;
      vectors[4999] = query;
      expect(index.search(query, 1)[0]).toEqual({ rowid: 5000, similarity: expect.closeTo(1, 5) });
      if (!lists)
        expect(index.search(query, 10).map((h) => h.rowid)).toEqual(findExactTop(vectors, query, 10));
    }
  });

  it("sees what another connection writes, deletes and retrains", async () => {
    const index = await open();
    const vectors = makeClusteredVectors(1500, 10);
    insertVectors(index, vectors.slice(0, 1000));
    expect(index.search(vectors[3] as Float32Array, 1)[0]?.rowid).toBe(4);
    const other = connectAgain();
    insertVectors(other, vectors.slice(1000), 1001);
    other.delete(4);
    expect(index.search(vectors[1200] as Float32Array, 1)[0]?.rowid).toBe(1201);
    expect(index.search(vectors[3] as Float32Array, 5).map((h) => h.rowid)).not.toContain(4);
    other.rebalance(1499);
    expect(index.listCount()).toBe(Math.round(1499 / 50));
    expect(index.search(vectors[1400] as Float32Array, 1)[0]?.rowid).toBe(1401);
  });

  it("forgets what a rolled-back transaction wrote, even if a search saw it", async () => {
    const index = await open();
    const vectors = makeClusteredVectors(400, 4);
    insertVectors(index, vectors.slice(0, 300));
    const late = vectors[350] as Float32Array;
    const store = stores[0] as IndexStore;
    expect(() =>
      store.read(() => {
        index.insert(999, late);
        expect(index.search(late, 1)[0]?.rowid).toBe(999);
        throw new Error("abandoned");
      }),
    ).toThrow("abandoned");
    index.insert(301, vectors[300] as Float32Array); // takes the log number the rolled-back row had
    expect(index.search(late, 3).map((h) => h.rowid)).not.toContain(999);
    expect(index.search(vectors[300] as Float32Array, 1)[0]?.rowid).toBe(301);
  });

  it.each([
    ["dense rowids, sampled by lookup", 1],
    ["sparse rowids, sampled by reading every row", 1000],
  ])("trains lists on a sample of a larger index (%s)", async (_, spacing) => {
    const index = await open({ ...TUNING, vectorsPerList: 200 });
    const vectors = makeClusteredVectors(4000, 16);
    for (const [i, v] of vectors.entries()) index.insert(1 + i * spacing, v);
    expect(index.rebalance(vectors.length)).toBe(true);
    expect(index.listCount()).toBe(20);
    const query = vectors[123] as Float32Array;
    expect(index.search(query, 1)[0]?.rowid).toBe(1 + 123 * spacing);
  });

  it("drops the lists again when the index shrinks below the threshold", async () => {
    const index = await open({ ...TUNING, minVectorsForLists: 500 });
    const vectors = makeClusteredVectors(600, 5);
    insertVectors(index, vectors);
    index.rebalance(600);
    for (let i = 1; i <= 450; i++) index.delete(i);
    expect(index.rebalance(150)).toBe(true);
    expect(index.listCount()).toBe(1);
    const query = vectors[500] as Float32Array;
    const remaining = vectors.map((v, i) => (i >= 450 ? v : undefined));
    expect(index.search(query, 5).map((h) => h.rowid)).toEqual(findExactTop(remaining, query, 5));
  });

  it("refuses vectors and queries of the wrong dimension, naming the field", async () => {
    const index = await open();
    expect(() => index.insert(1, new Float32Array(DIMS + 1))).toThrow(
      /vector: must have 32 dimensions, got 33/,
    );
    expect(() => index.search(new Float32Array(3), 5)).toThrow(/query: must have 32 dimensions, got 3/);
    expect(() => index.search(new Float32Array(DIMS), -1)).toThrow(/k: must be a whole number/);
    expect(index.search(new Float32Array(DIMS), 5)).toEqual([]);
  });

  it("converts the sqlite-vec table of an earlier version, keeping every vector", async () => {
    temp = await makeTempBrain();
    const vectors = makeClusteredVectors(200, 4);
    const first = IndexStore.open(temp.brain.databaseFile);
    first.useEmbedder(space);
    first.close();
    const db = new Database(temp.brain.databaseFile);
    sqliteVec.load(db);
    db.exec("DROP TABLE chunk_vectors; DROP TABLE vector_log");
    db.exec(
      `CREATE VIRTUAL TABLE chunk_vectors USING vec0(list INTEGER PARTITION KEY, embedding float[${DIMS}])`,
    );
    const insert = db.prepare("INSERT INTO chunk_vectors(rowid, list, embedding) VALUES (?, ?, ?)");
    for (const [i, v] of vectors.entries()) insert.run(BigInt(i + 1), BigInt(i % 3), vectorBlob(v));
    db.close();
    const index = connectAgain();
    const query = vectors[42] as Float32Array;
    expect(index.search(query, 10).map((h) => h.rowid)).toEqual(findExactTop(vectors, query, 10));
    expect(index.searchExact(query, 10).map((h) => h.rowid)).toEqual(findExactTop(vectors, query, 10));
  });
});
