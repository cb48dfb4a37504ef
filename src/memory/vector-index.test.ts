import { afterEach, describe, expect, it } from "vitest";
import { makeTempBrain, type TempBrain } from "../../test/support/memory-fixtures.js";
import { normaliseVector } from "./embedders/embedder.js";
import { IndexStore } from "./index-store.js";
import type { VectorIndex } from "./vector-index.js";

const DIMS = 16;
// Small lists so a test-sized index gets many of them; 20 % of them probed per search.
const TUNING = { minVectorsForLists: 1000, vectorsPerList: 50, probeShare: 0.2, minProbes: 2 };
const space = { id: "test", model: "clusters", dimensions: DIMS };

/** Vectors scattered around a few random centres, like topics in a brain. */
function clustered(count: number, centres: number, seed = 7): Float32Array[] {
  let s = seed;
  const random = () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
  const middles = Array.from({ length: centres }, () =>
    normaliseVector(Float32Array.from({ length: DIMS }, random)),
  );
  return Array.from({ length: count }, (_, i) => {
    const centre = middles[i % centres] as Float32Array;
    return normaliseVector(centre.map((v) => v + random() * 0.6));
  });
}

function exactTop(vectors: Float32Array[], query: Float32Array, k: number): number[] {
  return vectors
    .map((v, i) => ({ rowid: i + 1, score: v.reduce((sum, x, d) => sum + x * (query[d] as number), 0) }))
    .sort((a, b) => b.score - a.score)
    .slice(0, k)
    .map((r) => r.rowid);
}

function insertAll(index: VectorIndex, vectors: Float32Array[], firstRowid: number): void {
  for (const [i, v] of vectors.entries()) index.insert(firstRowid + i, v);
}

let temp: TempBrain;
let store: IndexStore;
afterEach(async () => {
  store?.close();
  await temp?.cleanup();
});

async function open(minVectorsForLists: number) {
  temp = await makeTempBrain();
  store = IndexStore.open(temp.brain.databaseFile, { tuning: { ...TUNING, minVectorsForLists } });
  store.useEmbedder(space);
  return store.vectors(space);
}

describe("vector index", () => {
  it("searches exactly while small", async () => {
    const index = await open(10_000);
    const vectors = clustered(300, 6);
    insertAll(index, vectors, 1);
    const query = vectors[17] as Float32Array;
    expect(index.search(query, 10).map((h) => h.rowid)).toEqual(exactTop(vectors, query, 10));
    expect(index.search(query, 1)[0]?.similarity).toBeCloseTo(1, 5);
    expect(index.listCount()).toBe(1);
  });

  it("switches to k-means lists past the threshold and keeps recall high", async () => {
    const index = await open(1000);
    const vectors = clustered(2000, 20);
    insertAll(index, vectors, 1);
    expect(index.rebalance(vectors.length)).toBe(true);
    expect(index.listCount()).toBe(2000 / TUNING.vectorsPerList);
    let found = 0;
    for (let q = 0; q < 50; q++) {
      const query = vectors[q * 37] as Float32Array;
      const exact = new Set(exactTop(vectors, query, 10));
      found += index.search(query, 10).filter((h) => exact.has(h.rowid)).length;
    }
    expect(found / 500).toBeGreaterThan(0.9);
    expect(index.rebalance(vectors.length)).toBe(false);
  });

  it("scans every list for the exact neighbours, where the approximate search probes a few", async () => {
    const index = await open(1000);
    const vectors = clustered(2000, 20);
    insertAll(index, vectors, 1);
    index.rebalance(vectors.length);
    let approximateMisses = 0;
    for (let q = 0; q < 50; q++) {
      // Between two topics, where the nearest neighbours are spread over several lists.
      const [a, b] = [vectors[q] as Float32Array, vectors[q + 1] as Float32Array];
      const query = normaliseVector(a.map((x, d) => x + 0.7 * (b[d] as number)));
      const exact = exactTop(vectors, query, 10);
      expect(index.searchExact(query, 10).map((h) => h.rowid)).toEqual(exact);
      approximateMisses += index.search(query, 10).filter((h) => !exact.includes(h.rowid)).length;
    }
    // The lists are in use: probing a fifth of them misses some neighbours the full scan finds.
    expect(approximateMisses).toBeGreaterThan(0);
  });

  it("files new vectors into the nearest list and forgets deleted ones", async () => {
    const index = await open(500);
    const vectors = clustered(1300, 10);
    insertAll(index, vectors.slice(0, 600), 1);
    index.rebalance(600);
    insertAll(index, vectors.slice(600), 601);
    const late = vectors[1100] as Float32Array;
    expect(index.search(late, 1)[0]?.rowid).toBe(1101);
    index.delete(1101);
    expect(index.search(late, 5).map((h) => h.rowid)).not.toContain(1101);
    expect(index.rebalance(1299)).toBe(true); // more than doubled since training
  });

  it("drops the lists again when the index shrinks below the threshold", async () => {
    const index = await open(500);
    const vectors = clustered(600, 5);
    insertAll(index, vectors, 1);
    index.rebalance(600);
    for (let i = 1; i <= 450; i++) index.delete(i);
    expect(index.rebalance(150)).toBe(true);
    expect(index.listCount()).toBe(1);
    const query = vectors[500] as Float32Array;
    expect(index.search(query, 5).map((h) => h.rowid)).toEqual(
      exactTop(vectors, query, 600)
        .filter((r) => r > 450)
        .slice(0, 5),
    );
  });

  it("sees lists retrained by another connection", async () => {
    const index = await open(500);
    const vectors = clustered(800, 8);
    insertAll(index, vectors, 1);
    const other = IndexStore.open(temp.brain.databaseFile, {
      tuning: { ...TUNING, minVectorsForLists: 500 },
    });
    other.vectors(space).rebalance(800);
    other.close();
    expect(index.listCount()).toBe(800 / TUNING.vectorsPerList);
    expect(index.search(vectors[3] as Float32Array, 1)[0]?.rowid).toBe(4);
  });
});
