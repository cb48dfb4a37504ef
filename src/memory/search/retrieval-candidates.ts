import { dotProduct, type Embedder } from "../embedders/embedder.js";
import type { IndexStore } from "../index/index.js";
import type { Candidate } from "./ranking-fusion.js";
import type { LexicalQuery } from "./retrieval-lexical.js";

/** Matches read from FTS5 per search: candidates come from the top, the rest score semantic candidates. */
const LEXICAL_DEPTH = 200;

export interface LexicalLeg {
  /** bm25 by rowid, best first. */
  scores: Map<number, number>;
  /** The leg returned every matching chunk, so a chunk it did not return does not match at all. */
  exhaustive: boolean;
  /**
   * bm25 of its last hit: an upper bound for any chunk it did not return (nearly: with CJK trigrams a chunk
   * outside both tables' lists can score up to the sum of their last hits; it is then scored as not matching).
   */
  floor: number;
  /** The semantic candidates' bm25, read in the same pass (null: the chunk does not match). */
  checked: Map<number, number | null>;
}

export interface CandidateRequest {
  /** The lexical leg's query, or undefined when that leg does not run. */
  lexical: LexicalQuery | undefined;
  /** The query's vector, or undefined when the semantic leg does not run. */
  queryVector: Float32Array | undefined;
  /** Candidates taken from the top of each leg. */
  lexicalPool: number;
  semanticPool: number;
}

/**
 * The union of both legs' best chunks, each with whatever that leg knows of it. Runs inside the caller's read
 * transaction. The semantic leg is the costly one on a large index (vec0 pays per row kept), and every lexical
 * candidate gets an exact cosine anyway, so it fetches fewer.
 */
export function gatherCandidates(
  store: IndexStore,
  embedder: Embedder,
  request: CandidateRequest,
): { candidates: Map<number, Candidate>; lexical: LexicalLeg } {
  const candidates = new Map<number, Candidate>();
  let lexical: LexicalLeg = { scores: new Map(), exhaustive: true, floor: 0, checked: new Map() };
  // The semantic leg first: the lexical pass then also scores its chunks, which spares `completeLexical` a
  // second pass over every match.
  const semantic = request.queryVector
    ? store.vectors(embedder).search(request.queryVector, request.semanticPool)
    : [];
  if (request.lexical && !request.lexical.empty) {
    const depth = Math.max(request.lexicalPool, LEXICAL_DEPTH);
    const also = semantic.map((hit) => hit.rowid);
    const { best: rows, alsoScores } = request.lexical.matchesWith(depth, also);
    lexical = {
      scores: new Map(rows),
      exhaustive: rows.length < depth,
      floor: rows.at(-1)?.[1] ?? 0,
      checked: new Map(also.map((rowid) => [rowid, alsoScores.get(rowid) ?? null])),
    };
    for (const [rowid, bm25] of rows.slice(0, request.lexicalPool)) {
      candidates.set(rowid, { rowid, bm25, similarity: null });
    }
  }
  if (request.queryVector) {
    for (const hit of semantic) {
      const known = candidates.get(hit.rowid);
      if (known) known.similarity = hit.similarity;
      else candidates.set(hit.rowid, { rowid: hit.rowid, similarity: hit.similarity, bm25: null });
    }
  }
  return { candidates, lexical };
}

/** The cosine of lexical-only candidates, from their cached vectors (one query, no vector scan). */
export function completeSemantic(
  store: IndexStore,
  embedder: Embedder,
  candidates: readonly Candidate[],
  queryVector: Float32Array,
): void {
  const missing = candidates.filter((c) => c.similarity === null);
  if (missing.length === 0) return;
  const vectors = store.cache(embedder).forChunks(missing.map((c) => c.rowid));
  for (const c of missing) {
    const vector = vectors.get(c.rowid);
    if (vector) c.similarity = dotProduct(queryVector, vector);
  }
}

/**
 * The bm25 of semantic-only candidates: from the deep lexical list when it has them; a candidate missing from
 * an exhaustive list does not match. Past a non-exhaustive list, the list's last bm25 bounds the candidate's:
 * its own is taken only when `couldRise` says that bound could lift it into the part of the ranking that is
 * returned; from what the lexical pass read for the semantic candidates, or else (a file the query names) from
 * FTS5, which reads every match again.
 */
export function completeLexical(
  query: LexicalQuery,
  candidates: readonly Candidate[],
  leg: LexicalLeg,
  couldRise: (unknown: Candidate[], bound: number) => Candidate[],
): void {
  const unknown: Candidate[] = [];
  for (const c of candidates) {
    if (c.bm25 !== null) continue;
    c.bm25 = leg.scores.get(c.rowid) ?? null;
    if (c.bm25 === null && !leg.exhaustive) unknown.push(c);
  }
  if (unknown.length === 0) return;
  const needed = couldRise(unknown, leg.floor);
  if (needed.length === 0) return;
  const unread = needed.filter((c) => !leg.checked.has(c.rowid));
  const byRowid = unread.length > 0 ? query.scoresOf(unread.map((c) => c.rowid)) : new Map<number, number>();
  for (const c of needed) c.bm25 = leg.checked.get(c.rowid) ?? byRowid.get(c.rowid) ?? null;
}
