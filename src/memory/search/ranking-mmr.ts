import { dotProduct } from "../embedders/embedder.js";

export interface MmrItem {
  rowid: number;
  /** Relevance after fusion and recency; MMR compares it on a 0..1 scale relative to the best item. */
  score: number;
}

export interface MmrPick<T extends MmrItem> {
  item: T;
  /** Highest cosine similarity to an item placed above it (0 for the first). */
  redundancy: number;
}

/**
 * Maximal marginal relevance (Carbonell & Goldstein, 1998): picks `k` items one at a time, each maximising
 * `λ · relevance − (1 − λ) · (its highest similarity to an item already picked)`. Near-identical daily entries
 * then stop filling the top of the list: the second copy of the same sentence pays for its similarity to the
 * first, and something new comes up in its place. Relevance is divided by the best score so λ weighs two
 * quantities on the same 0..1 scale whatever the fusion. Items without a vector are never penalised.
 *
 * `items` must be sorted best first; O(k · n) similarity computations.
 */
export function rerankByMmr<T extends MmrItem>(
  items: readonly T[],
  vectors: ReadonlyMap<number, Float32Array>,
  lambda: number,
  k: number,
): Array<MmrPick<T>> {
  const best = items[0]?.score ?? 0;
  const relevance = (item: T) => (best > 0 ? item.score / best : 0);
  const remaining = items.map((item) => ({ item, redundancy: 0, vector: vectors.get(item.rowid) }));
  const picked: Array<MmrPick<T>> = [];
  while (picked.length < k && remaining.length > 0) {
    let bestIndex = 0;
    let bestValue = Number.NEGATIVE_INFINITY;
    remaining.forEach((r, i) => {
      const value = lambda * relevance(r.item) - (1 - lambda) * r.redundancy;
      if (value > bestValue) {
        bestValue = value;
        bestIndex = i;
      }
    });
    const [chosen] = remaining.splice(bestIndex, 1);
    if (!chosen) break;
    picked.push({ item: chosen.item, redundancy: chosen.redundancy });
    // Only the newly picked item can raise anyone's redundancy, so one pass over the rest keeps it current.
    if (chosen.vector) {
      for (const r of remaining) {
        if (r.vector) r.redundancy = Math.max(r.redundancy, dotProduct(chosen.vector, r.vector));
      }
    }
  }
  return picked;
}
