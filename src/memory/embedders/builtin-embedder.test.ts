import { beforeAll, describe, expect, it } from "vitest";
import { loadTestEmbedder } from "../../../test/support/memory-fixtures.js";
import { seededRandom } from "../vector/kmeans.js";
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

  it("reads plain text the way its Unicode path does", () => {
    // A word with an accent sends a text down the Unicode path (NFKC, property classes); without it, the same
    // text takes the ASCII path, and must give the same words.
    const random = seededRandom(5);
    const alphabet = "aZ09 _-.›—’\u00a0#`(\n)qQxY7";
    for (let i = 0; i < 5_000; i++) {
      const length = Math.floor(random() * 24);
      let text = "";
      for (let c = 0; c < length; c++) text += alphabet[Math.floor(random() * alphabet.length)];
      expect([...tokenizeText(text), "café"], JSON.stringify(text)).toEqual(tokenizeText(`${text} café`));
      expect(tokenizeText(text, 2)).toEqual(tokenizeText(`café ${text}`, 3).slice(1));
    }
    expect(tokenizeText("sqliteVec › HTTPServer2Go")).toEqual(["sqlite", "vec", "httpserver2", "go"]);
  });

  it("describes its embedding space by table recipe", () => {
    expect(embedder.id).toBe("builtin");
    expect(embedder.dimensions).toBe(128);
    expect(embedder.model).toMatch(/^wink-sg100d-sif-abtt2-100000w\+ngram28$/);
  });
});
