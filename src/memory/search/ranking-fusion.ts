import type { FusionMethod } from "./retrieval-settings.js";

export interface Candidate {
  rowid: number;
  /** Cosine similarity with the query, null when the semantic leg did not run. */
  similarity: number | null;
  /** FTS5 bm25 (larger is better), null when the chunk does not match or the leg did not run. */
  bm25: number | null;
}

export interface Fused {
  c: Candidate;
  /** Each leg on 0..1, as the fusion used it. */
  semantic: number;
  lexical: number;
  /** The share of the query's word weight the chunk matches (bm25 over its ceiling, at most 1). */
  coverage: number;
  semanticRank: number | null;
  lexicalRank: number | null;
  score: number;
}

export interface FusionInput {
  method: FusionMethod;
  semanticWeight: number;
  lexicalWeight: number;
  /** The bm25 of a chunk of average length matching each query word once: the sum of the words' IDF. */
  lexicalCeiling: number;
}

/** Reciprocal-rank fusion's damping constant (Cormack et al., 2009): rank 1 and rank 5 differ, but not hugely. */
const RRF_K = 60;

/**
 * Fuses both legs' scores of every candidate into one 0..1 score (see `FusionMethod`). Pure: the caller has
 * already looked up every candidate's similarity and bm25.
 */
export function fuseCandidates(candidates: readonly Candidate[], input: FusionInput): Fused[] {
  const semanticRanks = ranksOf(candidates, (c) => c.similarity);
  const lexicalRanks = ranksOf(candidates, (c) => c.bm25);
  const bestBm25 = Math.max(0, ...candidates.map((c) => c.bm25 ?? 0));
  const ws = input.semanticWeight;
  const wl = input.lexicalWeight;
  return candidates.map((c) => {
    const semanticRank = semanticRanks.get(c.rowid) ?? null;
    const lexicalRank = lexicalRanks.get(c.rowid) ?? null;
    const coverage = input.lexicalCeiling > 0 ? Math.min(1, (c.bm25 ?? 0) / input.lexicalCeiling) : 0;
    let semantic = Math.max(0, Math.min(1, c.similarity ?? 0));
    let lexical: number;
    if (input.method === "rrf") {
      semantic = semanticRank === null ? 0 : (RRF_K + 1) / (RRF_K + semanticRank);
      lexical = lexicalRank === null ? 0 : (RRF_K + 1) / (RRF_K + lexicalRank);
    } else if (input.method === "relative") {
      lexical = bestBm25 > 0 ? (c.bm25 ?? 0) / bestBm25 : 0;
    } else {
      lexical = coverage;
    }
    const score = (ws * semantic + wl * lexical) / (input.method === "rrf" ? ws + wl : 1);
    return { c, semantic, lexical, coverage, semanticRank, lexicalRank, score };
  });
}

/** 1-based rank by a leg's score among the candidates that have one. */
function ranksOf(
  candidates: readonly Candidate[],
  value: (c: Candidate) => number | null,
): Map<number, number> {
  const scored = candidates.filter((c) => value(c) !== null);
  scored.sort((a, b) => (value(b) as number) - (value(a) as number) || a.rowid - b.rowid);
  return new Map(scored.map((c, i) => [c.rowid, i + 1]));
}
