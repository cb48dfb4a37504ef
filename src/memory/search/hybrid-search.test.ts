import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadTestEmbedder, makeTempBrain, type TempBrain } from "../../../test/support/memory-fixtures.js";
import { InvalidInputError } from "../../core/index.js";
import type { BuiltinEmbedder } from "../embedders/builtin-embedder.js";
import { cjkTrigrams, ftsMatchExpression } from "../index/fts-query.js";
import { IndexStore } from "../index/index-store.js";
import { Indexer } from "../index/indexer.js";
import { HybridSearch } from "./hybrid-search.js";

let temp: TempBrain;
let store: IndexStore;
let search: HybridSearch;
let embedder: BuiltinEmbedder;

beforeAll(async () => {
  embedder = await loadTestEmbedder();
  temp = await makeTempBrain({
    "health.md":
      "# Health\n\n## Allergies\n\nPenicillin causes a rash; avoid amoxicillin too.\n\n## Dentist\n\nCleaning every six months at the clinic on Rue Cler.\n",
    "car.md":
      "# Car\n\n## Brakes\n\nThe mechanic replaced the brake pads at 80,000 km.\n\n## Error codes\n\nDashboard showed P0420 twice in March: catalytic converter efficiency.\n",
    "cooking.md":
      "# Cooking\n\n## Sourdough\n\nFeed the starter with equal weights of flour and water every morning.\n",
    "weird.md":
      '# C++ & "quotes"\n\nOperators like a*b, key:value, -flag, (group), NEAR and OR AND NOT appear here.\n',
  });
  store = IndexStore.open(temp.brain.databaseFile);
  await new Indexer(temp.brain, store, embedder).indexAll();
  search = new HybridSearch(store, embedder);
});
afterAll(async () => {
  store.close();
  await temp.cleanup();
});

describe("hybrid search", () => {
  it("returns top-k with provenance and both leg scores", async () => {
    const [hit] = await search.search("P0420", { topK: 3 });
    expect(hit).toMatchObject({ path: "car.md", headings: ["Car", "Error codes"], startLine: 7, endLine: 9 });
    expect(hit?.lexical.bm25).toBeGreaterThan(0);
    expect(hit?.lexical.score).toBe(1);
    expect(hit?.semantic.similarity).toEqual(expect.any(Number));
    expect(hit?.score).toBeCloseTo(0.7 * (hit?.semantic.score ?? 0) + 0.3 * (hit?.lexical.score ?? 0), 10);
  });

  it("finds paraphrases through the semantic leg", async () => {
    const hits = await search.search("which antibiotics am I allergic to", { topK: 2 });
    expect(hits[0]?.headings).toEqual(["Health", "Allergies"]);
    const lexicalOnly = await search.search("which antibiotics am I allergic to", { mode: "lexical" });
    expect(lexicalOnly).toEqual([]);
  });

  it("scores every candidate on both legs and normalises each to 0..1", async () => {
    // Without MMR the list is in score order (MMR may place a near-duplicate below a lower score).
    const hits = await search.search("brake pads replaced", { topK: 10, mmr: false, minScore: 0 });
    for (const h of hits) {
      expect(h.semantic.score).toBeGreaterThanOrEqual(0);
      expect(h.semantic.score).toBeLessThanOrEqual(1);
      expect(h.lexical.score).toBeGreaterThanOrEqual(0);
      expect(h.lexical.score).toBeLessThanOrEqual(1);
      expect(h.semantic.similarity).not.toBeNull();
    }
    expect(hits.map((h) => h.score)).toEqual([...hits.map((h) => h.score)].sort((a, b) => b - a));
  });

  it("applies per-call weights", async () => {
    const lexicalHeavy = await search.search("mechanic flour", {
      semanticWeight: 0,
      lexicalWeight: 1,
      topK: 2,
    });
    expect(lexicalHeavy.every((h) => h.lexical.score > 0)).toBe(true);
    await expect(search.search("x", { semanticWeight: 1.5 })).rejects.toThrow(InvalidInputError);
    await expect(search.search("x", { topK: 0 })).rejects.toThrow(/topK/);
    await expect(search.search("x", { semanticWeight: 0, lexicalWeight: 0 })).rejects.toThrow(/both be 0/);
  });

  it.each([
    '"unbalanced quote',
    "a*b*",
    "key:value",
    "-flag --other",
    "(group) AND (",
    "NEAR(a b, 3)",
    "OR AND NOT",
    "^start {col}: x",
    "'; DROP TABLE chunks; --",
    'C++ & "quotes"',
    "***",
    "",
    "   ",
    "東京 naïve café",
  ])("never throws on FTS5 syntax in the query: %j", async (query) => {
    for (const mode of ["hybrid", "lexical", "semantic"] as const) {
      await expect(search.search(query, { mode })).resolves.toEqual(expect.any(Array));
    }
  });

  it("matches FTS5 operator words as plain words", async () => {
    const hits = await search.search("NEAR OR AND NOT", { mode: "lexical" });
    expect(hits[0]?.path).toBe("weird.md");
    expect(ftsMatchExpression('say "NEAR" (a*) -b:c')).toBe('"say" OR "near" OR "b" OR "c"');
    expect(ftsMatchExpression("the and of")).toBe('"the" OR "and" OR "of"');
    expect(ftsMatchExpression("?!")).toBeUndefined();
  });

  it("does not search the stray letters of contractions, and splits CJK runs into trigrams", () => {
    // "s" and "t" would match every possessive and "don't" in the brain.
    expect(ftsMatchExpression("what's Tomas's plan, won't it?")).toBe('"tomas" OR "plan"');
    expect(cjkTrigrams("京都の旅館 and 東京")).toEqual(["京都の", "都の旅", "の旅館"]);
  });
});
