import { describe, expect, it } from "vitest";
import { normaliseVector } from "../embedders/embedder.js";
import { applyFloor } from "./ranking-floor.js";
import { rerankByMmr } from "./ranking-mmr.js";

const v = (...xs: number[]) => normaliseVector(Float32Array.from(xs));

// Three copies of one entry (rowids 1–3) score a little above a different answer (4) and an unrelated hit (5).
const items = [
  { rowid: 1, score: 0.9 },
  { rowid: 2, score: 0.89 },
  { rowid: 3, score: 0.88 },
  { rowid: 4, score: 0.8 },
  { rowid: 5, score: 0.5 },
];
const vectors = new Map([
  [1, v(1, 0, 0)],
  [2, v(1, 0.01, 0)],
  [3, v(1, 0, 0.01)],
  [4, v(0, 1, 0)],
  [5, v(0.2, 0.2, 1)],
]);

describe("maximal marginal relevance", () => {
  it("moves copies of a better hit below a different answer, not below a much weaker one", () => {
    const picked = rerankByMmr(items, vectors, 0.8, 3);
    expect(picked.map((p) => p.item.rowid)).toEqual([1, 4, 2]);
    expect(picked[2]?.redundancy).toBeGreaterThan(0.99);
    expect(picked[0]?.redundancy).toBe(0);
    expect(picked[1]?.redundancy).toBeCloseTo(0, 5);
  });

  it("keeps the score order when λ is 1 or no vectors are known", () => {
    expect(rerankByMmr(items, vectors, 1, 5).map((p) => p.item.rowid)).toEqual([1, 2, 3, 4, 5]);
    expect(rerankByMmr(items, new Map(), 0.5, 5).map((p) => p.item.rowid)).toEqual([1, 2, 3, 4, 5]);
  });

  it("returns at most k items and nothing for nothing", () => {
    expect(rerankByMmr(items, vectors, 0.7, 2)).toHaveLength(2);
    expect(rerankByMmr([], vectors, 0.7, 5)).toEqual([]);
  });
});

describe("the score floor", () => {
  it("drops weak hits but keeps exact keyword hits below it", () => {
    const kept = applyFloor(
      [
        { score: 0.6, coverage: 0 },
        { score: 0.2, coverage: 0.9 },
        { score: 0.1, coverage: 0.2 },
      ],
      0.3,
    );
    expect(kept.map((k) => [k.item.score, k.floor])).toEqual([
      [0.6, "above"],
      [0.2, "keyword"],
    ]);
  });

  it("never empties the list on its own: the best hit stays", () => {
    const kept = applyFloor(
      [
        { score: 0.2, coverage: 0.1 },
        { score: 0.1, coverage: 0 },
      ],
      0.3,
    );
    expect(kept.map((k) => [k.item.score, k.floor])).toEqual([[0.2, "best"]]);
    expect(applyFloor([], 0.3)).toEqual([]);
  });
});
