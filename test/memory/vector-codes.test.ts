import { describe, expect, it } from "vitest";
import { normaliseVector } from "../../src/memory/embedders/embedder.js";
import { CentroidTable, seededRandom, trainCentroids } from "../../src/memory/vector/kmeans.js";
import { VectorCodes } from "../../src/memory/vector/vector-codes.js";
import { createVectorKernel } from "../../src/memory/vector/vector-kernel.js";

function makeRandomVectors(count: number, dims: number, seed: number): Float32Array[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () =>
    normaliseVector(Float32Array.from({ length: dims }, () => random() - 0.5)),
  );
}

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, d) => sum + x * (b[d] as number), 0);

describe("vector kernel", () => {
  it("runs as WebAssembly SIMD on this runtime", () => {
    expect(createVectorKernel().kind).toBe("simd");
  });

  it("computes the same integer dot products as plain arithmetic, in SIMD and in the fallback", () => {
    for (const prefer of ["simd", "scalar"] as const) {
      const kernel = createVectorKernel({ prefer });
      const rowBytes = 48;
      const random = seededRandom(3);
      const query = new Int16Array(kernel.memory.buffer, 0, rowBytes);
      const codes = new Int8Array(kernel.memory.buffer, 1024, rowBytes * 5);
      query.forEach((_, d) => {
        query[d] = Math.round((random() - 0.5) * 60000);
      });
      codes.forEach((_, i) => {
        codes[i] = Math.round((random() - 0.5) * 254);
      });
      new Int32Array(kernel.memory.buffer, 2048, 3).set([4, 0, 2]); // slots, out of order
      const scales = [1, 1, 0.5, 1, 2];
      new Float32Array(kernel.memory.buffer, 3072, 5).set(scales); // per-slot scales
      kernel.scoreRows(0, 1024, 2048, 3, rowBytes, 3072, 4096);
      const out = Array.from(new Float32Array(kernel.memory.buffer, 4096, 3));
      const expected = [4, 0, 2].map((slot) => {
        let sum = 0;
        for (let d = 0; d < rowBytes; d++)
          sum += (codes[slot * rowBytes + d] as number) * (query[d] as number);
        return sum * (scales[slot] as number);
      });
      expect(out, prefer).toEqual(expected);
    }
  });
});

describe("vector codes", () => {
  it("shortlists the rows nearest a query, across growth, removal and reuse of slots", () => {
    const dims = 40; // not a multiple of 16: codes are padded
    const vectors = makeRandomVectors(3000, dims, 11);
    const codes = new VectorCodes(dims);
    vectors.forEach((v, i) => {
      codes.put(i + 1, 0, v);
    });
    for (let rowid = 1; rowid <= 3000; rowid += 3) codes.remove(rowid);
    codes.put(2, 0, vectors[0] as Float32Array); // replaces row 2 with another vector
    expect(codes.size).toBe(2000);
    const query = vectors[0] as Float32Array;
    const exact = vectors
      .map((v, i) => ({ rowid: i + 1, score: dot(i === 1 ? query : v, query) }))
      .filter((r) => r.rowid % 3 !== 1)
      .sort((a, b) => b.score - a.score)
      .map((r) => r.rowid);
    const shortlist = codes.shortlist(query, 20).rowids;
    expect(shortlist[0]).toBe(2);
    expect(shortlist).not.toContain(1);
    // int8 codes rank almost exactly: the true top 10 are all in the top 20.
    expect(exact.slice(0, 10).filter((r) => shortlist.includes(r))).toHaveLength(10);
  });

  it("scores only the lists asked for", () => {
    const codes = new VectorCodes(16);
    codes.reset(3);
    const [a, b, c] = makeRandomVectors(3, 16, 5) as [Float32Array, Float32Array, Float32Array];
    codes.put(10, 0, a);
    codes.put(20, 1, b);
    codes.put(30, 2, c);
    expect(codes.shortlist(a, 3, [1, 2]).rowids.sort()).toEqual([20, 30]);
    expect(codes.listSize(1)).toBe(1);
    codes.remove(20);
    expect(codes.shortlist(a, 3, [1]).rowids).toEqual([]);
  });

  it("finds the same rows after laying the lists out anew, and keeps taking writes", () => {
    const dims = 32;
    const vectors = makeRandomVectors(500, dims, 21);
    const codes = new VectorCodes(dims);
    codes.reset(4);
    vectors.forEach((v, i) => {
      codes.put(i + 1, i % 4, v);
    });
    for (let rowid = 2; rowid <= 500; rowid += 5) codes.remove(rowid);
    const query = vectors[10] as Float32Array;
    const before = codes.shortlist(query, 30, [1, 3]);
    codes.compact();
    expect(codes.shortlist(query, 30, [1, 3])).toEqual(before);
    expect([0, 1, 2, 3].map((list) => codes.listSize(list))).toEqual([100, 100, 100, 100]);
    codes.put(2, 1, query);
    codes.remove(11);
    expect(codes.shortlist(query, 1, [1, 2]).rowids).toEqual([2]);
    expect(codes.has(11)).toBe(false);
    expect(codes.size).toBe(400);
  });

  it("ranks at least the best rows asked for, best first, as a full sort would", () => {
    const vectors = makeRandomVectors(2000, 16, 17);
    const codes = new VectorCodes(16);
    vectors.forEach((v, i) => {
      codes.put(i, 0, v);
    });
    const query = vectors[3] as Float32Array;
    const all = codes.rank(query);
    expect(all).toHaveLength(2000);
    for (const count of [1, 10, 333, 1999]) {
      const ranked = codes.rank(query, count);
      expect(ranked.length).toBeGreaterThanOrEqual(count);
      expect(ranked.slice(0, count)).toEqual(all.slice(0, count));
    }
  });

  it("rejects a list that does not exist", () => {
    const codes = new VectorCodes(16);
    expect(() => codes.put(1, 4, new Float32Array(16))).toThrow(/list 4 is not one of 1/);
  });
});

describe("centroid table", () => {
  it("files a vector in its nearest centroid, also through groups when there are many centroids", () => {
    const dims = 24;
    const sample = makeRandomVectors(4000, dims, 9);
    const flatSample = new Float32Array(sample.length * dims);
    sample.forEach((v, i) => {
      flatSample.set(v, i * dims);
    });
    const centroids = trainCentroids(flatSample, dims, 200);
    const flat = new CentroidTable(centroids, dims, { flatLimit: 1000, groupProbes: 4 });
    const grouped = new CentroidTable(centroids, dims, { flatLimit: 50, groupProbes: 4 });
    let same = 0;
    for (const v of sample.slice(0, 500)) {
      const truth = flat.rank(v)[0];
      expect(flat.nearest(v)).toBe(truth);
      if (grouped.nearest(v) === truth) same++;
    }
    // Groups trade a little accuracy for speed: most vectors still land in the very nearest list.
    expect(same / 500).toBeGreaterThan(0.8);
  });
});
