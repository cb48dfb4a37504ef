import { beforeAll, describe, expect, it } from "vitest";
import { loadTestEmbedder } from "../../../test/support/memory-fixtures.js";
import type { BuiltinEmbedder } from "./builtin-embedder.js";
import { dotProduct } from "./embedder.js";
import { stemCandidates, tokenizeText } from "./text-tokens.js";

let embedder: BuiltinEmbedder;
beforeAll(async () => {
  embedder = await loadTestEmbedder();
});

const similarity = (a: string, b: string) => dotProduct(embedder.embedText(a), embedder.embedText(b));

describe("built-in embedder", () => {
  it("carries meaning beyond shared words", () => {
    expect(similarity("The cat slept on the carpet", "A kitten dozed on the rug")).toBeGreaterThan(
      similarity("The cat slept on the carpet", "Quarterly revenue rose in Europe"),
    );
    expect(similarity("my car needs new brakes", "the mechanic replaced the brake pads")).toBeGreaterThan(
      similarity("my car needs new brakes", "we baked sourdough bread"),
    );
  });

  it("matches unknown words by their spelling through character n-grams", () => {
    expect(similarity("ironclawd restarts", "the ironclawd daemon")).toBeGreaterThan(
      similarity("ironclawd restarts", "the zqxvbn daemon"),
    );
  });

  it("falls back to simpler word forms for inflections it does not know", () => {
    expect(stemCandidates("reindexing")).toContain("reindex");
    expect(stemCandidates("stopped")).toContain("stop");
    expect(stemCandidates("libraries")).toContain("library");
  });

  it("splits camelCase and drops markdown punctuation", () => {
    expect(tokenizeText("## Use `sqliteVec.load(db)` — NOW!")).toEqual([
      "use",
      "sqlite",
      "vec",
      "load",
      "db",
      "now",
    ]);
  });

  it("describes its embedding space by table recipe", () => {
    expect(embedder.id).toBe("builtin");
    expect(embedder.dimensions).toBe(128);
    expect(embedder.model).toMatch(/^wink-sg100d-sif-abtt2-100000w\+ngram28$/);
  });
});
