import { SOURCE_VOCABULARY, type SourceWordVector } from "./wink-vector-source.js";
import { WordTable } from "./word-table.js";

export interface WordTableRecipe {
  /** Most frequent words kept; the rest of the vocabulary falls back to character n-grams. */
  maxWords: number;
  /** Dominant directions removed from every vector ("all-but-the-top", Mu & Viswanath 2018). */
  removedComponents: number;
  /** The `a` of smooth inverse frequency weighting (Arora et al. 2017): weight = a / (a + p(word)). */
  sifA: number;
}

export const DEFAULT_RECIPE: WordTableRecipe = { maxWords: 100_000, removedComponents: 2, sifA: 1e-3 };

/** Only words the tokeniser can produce are worth a row: letters and digits, no punctuation. */
const TOKEN_WORD = /^[\p{L}\p{N}]+$/u;

/**
 * Turns raw word vectors into the table the built-in embedder reads. Raw skip-gram/GloVe-style vectors share a
 * large common direction that makes every pair of texts look similar; removing the mean and the top principal
 * components and weighting words by rarity (frequent words carry little meaning) is what gives averaged word
 * vectors usable retrieval signal.
 */
export async function buildWordTable(
  source: AsyncIterable<SourceWordVector>,
  recipe: WordTableRecipe = DEFAULT_RECIPE,
): Promise<Buffer> {
  const words: string[] = [];
  const ranks: number[] = [];
  let dims = 0;
  let raw = new Float64Array(0);
  for await (const row of source) {
    if (!TOKEN_WORD.test(row.word) || row.word !== row.word.toLowerCase()) continue;
    if (dims === 0) {
      dims = row.vector.length;
      raw = new Float64Array(recipe.maxWords * dims);
    }
    raw.set(row.vector, words.length * dims);
    words.push(row.word);
    ranks.push(row.rank);
    if (words.length >= recipe.maxWords) break;
  }
  const count = words.length;
  const matrix = raw.subarray(0, count * dims);
  const components = principalDirections(centre(matrix, dims), dims, recipe.removedComponents);
  const weights = new Float32Array(count);
  const scales = new Float32Array(count);
  const vectors = new Int8Array(count * dims);
  const zipfNorm = Math.log(SOURCE_VOCABULARY) + 0.5772;
  for (let i = 0; i < count; i++) {
    const row = matrix.subarray(i * dims, (i + 1) * dims);
    for (const c of components) subtractProjection(row, c);
    normalise(row);
    let peak = 0;
    for (let d = 0; d < dims; d++) peak = Math.max(peak, Math.abs(row[d] as number));
    const scale = peak === 0 ? 1 : peak / 127;
    for (let d = 0; d < dims; d++) vectors[i * dims + d] = Math.round((row[d] as number) / scale);
    scales[i] = scale;
    // Zipf's law estimates a word's probability from its frequency rank when counts are not published.
    const probability = 1 / (((ranks[i] as number) + 1) * zipfNorm);
    weights[i] = recipe.sifA / (recipe.sifA + probability);
  }
  return WordTable.encode(words, { dimensions: dims, weights, scales, vectors });
}

/** Subtracts the column mean in place and returns the matrix. */
function centre(matrix: Float64Array, dims: number): Float64Array {
  const rows = matrix.length / dims;
  const mean = new Float64Array(dims);
  for (let i = 0; i < matrix.length; i++)
    mean[i % dims] = (mean[i % dims] as number) + (matrix[i] as number) / rows;
  for (let i = 0; i < matrix.length; i++) matrix[i] = (matrix[i] as number) - (mean[i % dims] as number);
  return matrix;
}

/** Top principal directions by power iteration with deflation on the covariance of the most frequent rows. */
function principalDirections(matrix: Float64Array, dims: number, k: number): Float64Array[] {
  const rows = Math.min(matrix.length / dims, 50_000);
  const cov = new Float64Array(dims * dims);
  for (let r = 0; r < rows; r++) {
    const off = r * dims;
    for (let a = 0; a < dims; a++) {
      const va = matrix[off + a] as number;
      for (let b = a; b < dims; b++)
        cov[a * dims + b] = (cov[a * dims + b] as number) + va * (matrix[off + b] as number);
    }
  }
  for (let a = 0; a < dims; a++) for (let b = 0; b < a; b++) cov[a * dims + b] = cov[b * dims + a] as number;
  const found: Float64Array[] = [];
  for (let c = 0; c < k; c++) {
    let v = new Float64Array(dims).fill(1 / Math.sqrt(dims));
    for (let iter = 0; iter < 200; iter++) {
      const next = new Float64Array(dims);
      for (let a = 0; a < dims; a++) {
        let s = 0;
        for (let b = 0; b < dims; b++) s += (cov[a * dims + b] as number) * (v[b] as number);
        next[a] = s;
      }
      for (const prev of found) subtractProjection(next, prev);
      normalise(next);
      v = next;
    }
    found.push(v);
  }
  return found;
}

function subtractProjection(row: Float64Array, direction: Float64Array): void {
  let dot = 0;
  for (let d = 0; d < row.length; d++) dot += (row[d] as number) * (direction[d] as number);
  for (let d = 0; d < row.length; d++) row[d] = (row[d] as number) - dot * (direction[d] as number);
}

function normalise(row: Float64Array): void {
  let norm = 0;
  for (let d = 0; d < row.length; d++) norm += (row[d] as number) ** 2;
  norm = Math.sqrt(norm);
  if (norm > 0) for (let d = 0; d < row.length; d++) row[d] = (row[d] as number) / norm;
}
