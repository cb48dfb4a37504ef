/**
 * A chunk containing words that carry at least this share of the query's word weight (IDF-weighted, so the
 * rare words count most) is an exact keyword hit: a code, a name or a rare term the person typed, found
 * verbatim. The floor never drops one, whatever the embedder thinks of it.
 */
export const KEYWORD_COVERAGE = 0.5;

/** Why a hit is in the list: its score, its keywords, being the best there was, its file named, no floor. */
export type FloorPass = "above" | "keyword" | "best" | "named" | "off";

export interface FloorItem {
  score: number;
  coverage: number;
}

/**
 * Drops the hits scoring under `minScore`, keeping exact keyword hits below it. When nothing would be left,
 * the best hit stays: a floor tuned on one embedder's score range must not turn a poor match into no answer
 * at all. `ranked` is sorted best first; its order is kept.
 */
export function applyFloor<T extends FloorItem>(
  ranked: readonly T[],
  minScore: number,
): Array<{ item: T; floor: FloorPass }> {
  const kept: Array<{ item: T; floor: FloorPass }> = [];
  for (const item of ranked) {
    if (item.score >= minScore) kept.push({ item, floor: "above" });
    else if (item.coverage >= KEYWORD_COVERAGE) kept.push({ item, floor: "keyword" });
  }
  const first = ranked[0];
  if (kept.length === 0 && first) kept.push({ item: first, floor: "best" });
  return kept;
}
