import { InvalidInputError } from "../core/index.js";
import { dotProduct, type Embedder } from "./embedders/embedder.js";
import { ftsMatchExpression } from "./fts-query.js";
import type { IndexStore } from "./index-store.js";

export type SearchMode = "hybrid" | "lexical" | "semantic";

export interface RetrievalSettings {
  semanticWeight: number;
  lexicalWeight: number;
  topK: number;
}

/** Seed 003 §6.3: 0.7 semantic + 0.3 lexical. */
export const DEFAULT_RETRIEVAL: RetrievalSettings = { semanticWeight: 0.7, lexicalWeight: 0.3, topK: 8 };

export interface SearchOptions extends Partial<RetrievalSettings> {
  /** `lexical` and `semantic` run one leg alone (for comparison and for `--mode` on the CLI). */
  mode?: SearchMode;
  signal?: AbortSignal;
}

/** One result with its provenance and both legs' scores, so a ranking can be explained. */
export interface SearchHit {
  id: string;
  path: string;
  headings: string[];
  startLine: number;
  endLine: number;
  text: string;
  score: number;
  /** Cosine similarity (null when the leg did not run) and its 0..1 normalised form. */
  semantic: { similarity: number | null; score: number };
  /** FTS5 bm25 relevance, larger is better (null when the leg did not run or did not match), and its 0..1 form. */
  lexical: { bm25: number | null; score: number };
}

interface Candidate {
  rowid: number;
  similarity: number | null;
  bm25: number | null;
}

/**
 * Hybrid retrieval (seed 003 §6): candidates from both legs — FTS5 bm25 and vector cosine — are scored on both,
 * each leg normalised to 0..1 over the candidates, then fused as `w_s · semantic + w_l · lexical`.
 *
 * Normalisation: semantic is the cosine itself with negatives as 0, which is already on a fixed 0..1 scale and
 * so does not depend on how many candidates were fetched. bm25 has no fixed scale, so lexical is bm25 divided by
 * the best bm25 among the candidates; a chunk matching no query word scores 0.
 */
export class HybridSearch {
  constructor(
    private readonly store: IndexStore,
    private readonly embedder: Embedder,
    private readonly defaults: RetrievalSettings = DEFAULT_RETRIEVAL,
  ) {}

  async search(query: string, options: SearchOptions = {}): Promise<SearchHit[]> {
    const settings = checkSettings({ ...this.defaults, ...definedOnly(options) });
    const mode = options.mode ?? "hybrid";
    // Candidates per leg. The semantic leg is the costly one on a large index (vec0 pays per row kept), and
    // every lexical candidate gets an exact cosine anyway, so it fetches fewer.
    const pool = Math.max(settings.topK * 5, 50);
    const semanticPool = Math.max(settings.topK * 3, 30);
    const match = ftsMatchExpression(query);
    let queryVector: Float32Array | undefined;
    if (mode !== "lexical" && query.trim() !== "") {
      const signal = options.signal;
      [queryVector] = await this.embedder.embed([query], signal ? { signal } : {});
    }
    // One read transaction: every statement sees the same snapshot, even while an indexer commits files.
    return this.store.read(() => {
      const candidates = new Map<number, Candidate>();
      let lexical: LexicalLeg = { scores: new Map(), exhaustive: true, floor: 0 };
      if (mode !== "semantic" && match !== undefined) {
        lexical = this.lexicalLeg(match, Math.max(pool, LEXICAL_DEPTH));
        let taken = 0;
        for (const [rowid, bm25] of lexical.scores) {
          if (taken++ >= pool) break;
          candidates.set(rowid, { rowid, bm25, similarity: null });
        }
      }
      if (queryVector) {
        for (const hit of this.store.vectors(this.embedder).search(queryVector, semanticPool)) {
          const known = candidates.get(hit.rowid);
          if (known) known.similarity = hit.similarity;
          else candidates.set(hit.rowid, { rowid: hit.rowid, similarity: hit.similarity, bm25: null });
        }
      }
      if (candidates.size === 0) return [];
      if (mode === "hybrid") {
        this.completeSemantic([...candidates.values()], queryVector);
        if (match !== undefined) this.completeLexical([...candidates.values()], match, lexical, settings);
      }
      const weights =
        mode === "hybrid"
          ? settings
          : { semanticWeight: mode === "semantic" ? 1 : 0, lexicalWeight: mode === "lexical" ? 1 : 0 };
      return this.rank([...candidates.values()], weights, settings.topK);
    });
  }

  /**
   * bm25 of the best `depth` matches, best first. Only the first `pool` become candidates; the deeper ones
   * score semantic candidates on the lexical leg for free, since FTS5 computes bm25 for every match anyway.
   */
  private lexicalLeg(match: string, depth: number): LexicalLeg {
    const rows = this.store.lexical.matches(match, depth);
    return { scores: new Map(rows), exhaustive: rows.length < depth, floor: rows.at(-1)?.[1] ?? 0 };
  }

  /** The cosine of lexical-only candidates, from their cached vectors (one query, no vector scan). */
  private completeSemantic(candidates: Candidate[], queryVector: Float32Array | undefined): void {
    const missing = candidates.filter((c) => c.similarity === null);
    if (!queryVector || missing.length === 0) return;
    const vectors = this.store.cache(this.embedder).forChunks(missing.map((c) => c.rowid));
    for (const c of missing) {
      const vector = vectors.get(c.rowid);
      if (vector) c.similarity = dotProduct(queryVector, vector);
    }
  }

  /**
   * The bm25 of semantic-only candidates: from the deep lexical list when it has them; a candidate missing from
   * an exhaustive list does not match. Past a non-exhaustive list, the list's last bm25 bounds the candidate's:
   * it is looked up in FTS5 (~30 µs a chunk) only when that bound could lift it into the top k.
   */
  private completeLexical(
    candidates: Candidate[],
    match: string,
    leg: LexicalLeg,
    settings: RetrievalSettings,
  ): void {
    const unknown: Candidate[] = [];
    for (const c of candidates) {
      if (c.bm25 !== null) continue;
      c.bm25 = leg.scores.get(c.rowid) ?? null;
      if (c.bm25 === null && !leg.exhaustive) unknown.push(c);
    }
    const best = Math.max(0, ...candidates.map((c) => c.bm25 ?? 0));
    if (unknown.length === 0 || best <= 0) return;
    const known = (c: Candidate) =>
      settings.semanticWeight * semanticScore(c) + (settings.lexicalWeight * (c.bm25 ?? 0)) / best;
    const kth = candidates.map(known).sort((a, b) => b - a)[settings.topK - 1] ?? Number.NEGATIVE_INFINITY;
    const needed = unknown.filter((c) => known(c) + (settings.lexicalWeight * leg.floor) / best > kth);
    if (needed.length === 0) return;
    const byRowid = this.store.lexical.scoresOf(
      match,
      needed.map((c) => c.rowid),
    );
    for (const c of needed) c.bm25 = byRowid.get(c.rowid) ?? null;
  }

  private rank(
    candidates: Candidate[],
    weights: { semanticWeight: number; lexicalWeight: number },
    topK: number,
  ): SearchHit[] {
    const bestLexical = Math.max(0, ...candidates.map((c) => c.bm25 ?? 0));
    const scored = candidates
      .map((c) => {
        const lexical = bestLexical > 0 && c.bm25 !== null ? c.bm25 / bestLexical : 0;
        const semantic = semanticScore(c);
        return {
          c,
          lexical,
          semantic,
          score: weights.semanticWeight * semantic + weights.lexicalWeight * lexical,
        };
      })
      .filter((s) => (weights.semanticWeight > 0 ? true : s.lexical > 0))
      .sort((a, b) => b.score - a.score || a.c.rowid - b.c.rowid)
      .slice(0, topK);
    const chunks = new Map(this.store.chunksByRowid(scored.map((s) => s.c.rowid)).map((c) => [c.rowid, c]));
    return scored.flatMap((s) => {
      const chunk = chunks.get(s.c.rowid);
      if (!chunk) return [];
      return [
        {
          id: chunk.id,
          path: chunk.path,
          headings: chunk.headings,
          startLine: chunk.startLine,
          endLine: chunk.endLine,
          text: chunk.text,
          score: s.score,
          semantic: { similarity: s.c.similarity, score: s.semantic },
          lexical: { bm25: s.c.bm25, score: s.lexical },
        },
      ];
    });
  }
}

interface LexicalLeg {
  /** bm25 by rowid, best first. */
  scores: Map<number, number>;
  /** The leg returned every matching chunk, so a chunk it did not return does not match at all. */
  exhaustive: boolean;
  /** bm25 of its last hit: an upper bound for any chunk it did not return. */
  floor: number;
}

/** Matches read from FTS5 per search: candidates come from the top, the rest score semantic candidates. */
const LEXICAL_DEPTH = 200;

/** Cosine similarity on the 0..1 scale: negative (opposite) directions count as no similarity. */
function semanticScore(c: Candidate): number {
  return Math.max(0, Math.min(1, c.similarity ?? 0));
}

function definedOnly(options: SearchOptions): Partial<RetrievalSettings> {
  const out: Partial<RetrievalSettings> = {};
  if (options.semanticWeight !== undefined) out.semanticWeight = options.semanticWeight;
  if (options.lexicalWeight !== undefined) out.lexicalWeight = options.lexicalWeight;
  if (options.topK !== undefined) out.topK = options.topK;
  return out;
}

/** Refuses weights outside 0..1 (or both zero) and a top_k outside 1..100, naming the field. */
export function checkSettings(settings: RetrievalSettings): RetrievalSettings {
  for (const field of ["semanticWeight", "lexicalWeight"] as const) {
    const w = settings[field];
    if (!Number.isFinite(w) || w < 0 || w > 1)
      throw new InvalidInputError(field, `must be between 0 and 1, got ${w}`);
  }
  if (settings.semanticWeight + settings.lexicalWeight === 0) {
    throw new InvalidInputError("semanticWeight", "and lexicalWeight must not both be 0");
  }
  if (!Number.isInteger(settings.topK) || settings.topK < 1 || settings.topK > 100) {
    throw new InvalidInputError("topK", `must be an integer from 1 to 100, got ${settings.topK}`);
  }
  return settings;
}
