import { describe, expect, it } from "vitest";
import { InvalidInputError } from "../../core/index.js";
import type { SourceWordVector } from "./wink-vector-source.js";
import { WordTable } from "./word-table.js";
import { buildWordTable } from "./word-table-build.js";

async function* source(rows: Array<[string, number[]]>): AsyncGenerator<SourceWordVector> {
  for (const [rank, [word, values]] of rows.entries())
    yield { word, rank, vector: Float64Array.from(values) };
}

const rows: Array<[string, number[]]> = [
  ["the", [1, 0.1, 0, 0]],
  ["u.s.", [0, 1, 0, 0]],
  ["café", [0.2, 0.9, 0.1, 0]],
  ["garden", [0, 0.2, 1, 0.3]],
  ["Tokyo", [0, 0, 0.1, 1]],
  ["東京", [0.1, 0, 0.2, 1]],
];

describe("word table", () => {
  it("keeps only words the tokeniser can produce, in frequency order, and finds them again", async () => {
    const bytes = await buildWordTable(source(rows), { maxWords: 10, removedComponents: 1, sifA: 1e-3 });
    const table = WordTable.decode(bytes, "t.bin");
    expect(table.count).toBe(4);
    expect([0, 1, 2, 3].map((r) => table.wordAt(r))).toEqual(["the", "café", "garden", "東京"]);
    expect(table.lookup("garden")).toBe(2);
    expect(table.lookup("café")).toBe(1);
    expect(table.lookup("東京")).toBe(3);
    expect(table.lookup("gardens")).toBe(-1);
    expect(table.lookup("u.s.")).toBe(-1);
  });

  it("weights frequent words down and stores unit-length rows", async () => {
    const table = WordTable.decode(await buildWordTable(source(rows)), "t.bin");
    expect(table.weights[0]).toBeLessThan(table.weights[2] as number);
    for (let r = 0; r < table.count; r++) {
      let norm = 0;
      for (let d = 0; d < table.dimensions; d++)
        norm += ((table.vectors[r * table.dimensions + d] as number) * (table.scales[r] as number)) ** 2;
      expect(Math.sqrt(norm)).toBeCloseTo(1, 1);
    }
  });

  it("refuses a file that is not a table or is cut short", async () => {
    const bytes = await buildWordTable(source(rows));
    expect(() => WordTable.decode(Buffer.from("hello world, not a table at all!!"), "x.bin")).toThrow(
      InvalidInputError,
    );
    expect(() => WordTable.decode(bytes.subarray(0, bytes.length - 3), "x.bin")).toThrow(/truncated/);
  });
});
