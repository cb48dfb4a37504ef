import { dotProduct, type Embedder } from "./embedders/embedder.js";
import type { IndexStore } from "./index-store.js";
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
  let lexical: LexicalLeg = { scores: new Map(), exhaustive: true, floor: 0 };
  if (request.lexical && !request.lexical.empty) {
    const depth = Math.max(request.lexicalPool, LEXICAL_DEPTH);
    const rows = request.lexical.matches(depth);
    lexical = { scores: new Map(rows), exhaustive: rows.length < depth, floor: rows.at(-1)?.[1] ?? 0 };
    for (const [rowid, bm25] of rows.slice(0, request.lexicalPool)) {
      candidates.set(rowid, { rowid, bm25, similarity: null });
    }
  }
  if (request.queryVector) {
    for (const hit of store.vectors(embedder).search(request.queryVector, request.semanticPool)) {
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
 * it is looked up in FTS5 (~30 µs a chunk) only when `couldRise` says that bound could lift it into the part of
 * the ranking that is returned.
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
  const byRowid = query.scoresOf(needed.map((c) => c.rowid));
  for (const c of needed) c.bm25 = byRowid.get(c.rowid) ?? null;
}
