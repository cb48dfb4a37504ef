import { InvalidInputError } from "../../core/index.js";

/**
 * How the two legs' scores become one:
 * - `calibrated`: seed 003 §6.3's `w_s · semantic + w_l · lexical`, with the lexical leg scored on an absolute
 *   scale — the query's bm25 over the bm25 a chunk matching every query word would get — so a chunk sharing
 *   one common word with the query gets a small lexical score, not the 1.0 it got as the best of a weak list.
 * - `rrf`: reciprocal-rank fusion, `w / (60 + rank)` per leg, scaled so that first in both legs is 1.
 * - `relative`: the old normalisation, bm25 over the best bm25 among the candidates. Kept to compare with.
 */
export const FUSION_METHODS = ["calibrated", "rrf", "relative"] as const;
export type FusionMethod = (typeof FUSION_METHODS)[number];

/** An agent's retrieval settings (`[retrieval]` of its profile), with the defaults below. */
export interface RetrievalSettings {
  semanticWeight: number;
  lexicalWeight: number;
  topK: number;
  fusion: FusionMethod;
  /** Dated notes (daily logs, session transcripts) lose weight with age; undated and evergreen ones never. */
  decay: boolean;
  halfLifeDays: number;
  /** The share of its score the oldest dated note keeps: recency decides between matches, never hides one. */
  decayFloor: number;
  /** Maximal marginal relevance: a hit nearly identical to a better one moves down the list. */
  mmr: boolean;
  /** 1 ranks by relevance alone, 0 by novelty alone. */
  mmrLambda: number;
  /** Hits whose final score is below this are dropped, except exact keyword hits (see ranking-floor.ts). */
  minScore: number;
}

/**
 * Seed 003 §6.3's 0.7 semantic + 0.3 lexical; the rest chosen on test/fixtures/memory-eval with the built-in
 * embedder (test/memory/retrieval-eval.test.ts prints the table):
 * - a 90-day half-life down to 0.8 raised MRR on "what is the state now" questions (0.33 → 0.38) for one
 *   old note lost from a top 5 of 50; half-lives of 14–30 days lost far more (recent noise outranks the answer);
 * - λ 0.8 let a multi-hop question's second source into the top 5 (recall 0.58 → 0.66) at the least cost to
 *   temporal questions, whose newest and older states are near-duplicates;
 * - fused scores of that embedder: relevant hits' median 0.45, off-topic questions' median 0.25; 0.23 is the
 *   highest floor that costs no query its recall, and removes a third of off-topic hits.
 */
export const DEFAULT_RETRIEVAL: RetrievalSettings = {
  semanticWeight: 0.7,
  lexicalWeight: 0.3,
  topK: 8,
  fusion: "calibrated",
  decay: true,
  halfLifeDays: 90,
  decayFloor: 0.8,
  mmr: true,
  mmrLambda: 0.8,
  minScore: 0.23,
};

const UNIT_FIELDS = ["semanticWeight", "lexicalWeight", "decayFloor", "mmrLambda", "minScore"] as const;

/** Refuses any setting outside its range, naming the field and the rule. */
export function checkSettings(settings: RetrievalSettings): RetrievalSettings {
  for (const field of UNIT_FIELDS) {
    const value = settings[field];
    if (typeof value !== "number" || !Number.isFinite(value) || value < 0 || value > 1)
      throw new InvalidInputError(field, `must be between 0 and 1, got ${value}`);
  }
  if (settings.semanticWeight + settings.lexicalWeight === 0) {
    throw new InvalidInputError("semanticWeight", "and lexicalWeight must not both be 0");
  }
  if (!Number.isInteger(settings.topK) || settings.topK < 1 || settings.topK > 100) {
    throw new InvalidInputError("topK", `must be an integer from 1 to 100, got ${settings.topK}`);
  }
  const { halfLifeDays } = settings;
  if (typeof halfLifeDays !== "number" || !Number.isFinite(halfLifeDays) || halfLifeDays <= 0) {
    throw new InvalidInputError("halfLifeDays", `must be a number of days above 0, got ${halfLifeDays}`);
  }
  if (!FUSION_METHODS.includes(settings.fusion)) {
    throw new InvalidInputError(
      "fusion",
      `must be one of ${FUSION_METHODS.join(", ")}, got ${settings.fusion}`,
    );
  }
  for (const field of ["decay", "mmr"] as const) {
    if (typeof settings[field] !== "boolean")
      throw new InvalidInputError(field, `must be true or false, got ${settings[field]}`);
  }
  return settings;
}

/** The settings among `options` that are set, so `undefined` never overrides a default. */
export function definedSettings(options: Partial<RetrievalSettings>): Partial<RetrievalSettings> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(DEFAULT_RETRIEVAL) as Array<keyof RetrievalSettings>) {
    if (options[key] !== undefined) out[key] = options[key];
  }
  return out as Partial<RetrievalSettings>;
}
