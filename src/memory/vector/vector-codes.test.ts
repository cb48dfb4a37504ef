import { describe, expect, it } from "vitest";
import { normaliseVector } from "../embedders/embedder.js";
import { seededRandom } from "./kmeans.js";
import { VectorCodes } from "./vector-codes.js";

const DIMS = 24;

function randomUnit(random: () => number): Float32Array {
  return normaliseVector(Float32Array.from({ length: DIMS }, () => random() - 0.5));
}

/** 300 random rows in 6 lists, rowids 1000 and up. */
function filledCodes(kernel: "simd" | "scalar"): VectorCodes {
  const random = seededRandom(11);
  const codes = new VectorCodes(DIMS, { kernel });
  codes.reset(6);
  for (let i = 0; i < 300; i++) codes.put(1000 + i, i % 6, randomUnit(random));
  return codes;
}

describe.each(["simd", "scalar"] as const)("VectorCodes.best (%s kernel)", (kernel) => {
  it("names the row a one-row shortlist names, over every list and over some", () => {
    const codes = filledCodes(kernel);
    const random = seededRandom(5);
    for (let q = 0; q < 50; q++) {
      const query = randomUnit(random);
      expect(codes.best(query)).toBe(codes.shortlist(query, 1).rowids[0]);
      expect(codes.best(query, [1, 4])).toBe(codes.shortlist(query, 1, [1, 4]).rowids[0]);
    }
  });

  it("finds a stored row from its own vector, and nothing in empty lists", () => {
    const codes = filledCodes(kernel);
    const vector = randomUnit(seededRandom(99));
    codes.put(7, 2, vector);
    expect(codes.best(vector)).toBe(7);
    codes.reset(3);
    expect(codes.best(vector)).toBeUndefined();
    expect(codes.best(vector, [0, 2])).toBeUndefined();
  });
});
