import type { FloorPass } from "./ranking-floor.js";
import type { Fused } from "./ranking-fusion.js";
import type { SourceAge } from "./ranking-recency.js";
import type { FusionMethod, RetrievalSettings } from "./retrieval-settings.js";

export interface Ranked extends Fused {
  path: string;
  age: SourceAge;
  /** The recency multiplier and the score before it. */
  factor: number;
  fused: number;
}

/** A ranked hit on its way out: how it passed the floor, its MMR redundancy, where it was before MMR. */
export interface Placed {
  item: Ranked;
  floor: FloorPass;
  redundancy?: number;
  rankBefore: number;
}

/** How a hit got its place, step by step, so a person (or the UI) can see why it was recalled. */
export interface RankingExplanation {
  fusion: FusionMethod;
  /** 1-based rank of the chunk in each leg among the candidates; null when that leg did not find it. */
  semanticRank: number | null;
  lexicalRank: number | null;
  /** Share of the query's (IDF-weighted) words the chunk contains, 0..1. */
  coverage: number;
  /** The fused score, before recency. */
  fused: number;
  recency: {
    source: "dated" | "undated" | "evergreen";
    /** The date a dated source is from (YYYY-MM-DD), its age in days, and the half-life applied. */
    date?: string;
    ageDays?: number;
    halfLifeDays?: number;
    /** What the fused score was multiplied by: 1 for undated and evergreen sources, or when decay is off. */
    factor: number;
  };
  /** `named`: the query names the hit's file, which puts it first whatever its score. */
  floor: { minScore: number; passed: FloorPass };
  /** When MMR ordered the list: the highest similarity to a hit above, and the place by score alone. */
  mmr?: { lambda: number; redundancy: number; rankBefore: number };
  /** The same in one line. */
  summary: string;
}

/** The explanation of the hit placed at `position` (1-based). */
export function explainHit(
  p: Placed,
  position: number,
  settings: RetrievalSettings,
  ageDays: number,
): RankingExplanation {
  const { item } = p;
  const recency: RankingExplanation["recency"] =
    item.age.kind === "dated"
      ? {
          source: "dated",
          date: item.age.date,
          ageDays,
          ...(settings.decay ? { halfLifeDays: settings.halfLifeDays } : {}),
          factor: item.factor,
        }
      : { source: item.age.kind, factor: 1 };
  const e = {
    fusion: settings.fusion,
    semanticRank: item.semanticRank,
    lexicalRank: item.lexicalRank,
    coverage: item.coverage,
    fused: item.fused,
    recency,
    floor: { minScore: settings.minScore, passed: p.floor },
    ...(p.redundancy === undefined
      ? {}
      : { mmr: { lambda: settings.mmrLambda, redundancy: p.redundancy, rankBefore: p.rankBefore } }),
  };
  return { ...e, summary: summarise(e, item.score, position) };
}

function summarise(e: Omit<RankingExplanation, "summary">, score: number, position: number): string {
  const rank = (r: number | null) => (r === null ? "–" : `#${r}`);
  const parts = [
    `${e.fusion}: semantic ${rank(e.semanticRank)}, lexical ${rank(e.lexicalRank)} ` +
      `(coverage ${e.coverage.toFixed(2)}) → ${e.fused.toFixed(3)}`,
  ];
  const r = e.recency;
  if (r.source !== "dated") parts.push(`${r.source}, no decay`);
  else if (r.halfLifeDays === undefined) parts.push(`dated ${r.date}, decay off`);
  else
    parts.push(
      `dated ${r.date}, ${r.ageDays} days old, half-life ${r.halfLifeDays} d: × ${r.factor.toFixed(3)}`,
    );
  parts.push(`score ${score.toFixed(3)}`);
  if (e.floor.passed === "named") parts.push("the query names this file");
  if (e.floor.passed === "keyword") parts.push(`below min_score ${e.floor.minScore}, kept as a keyword hit`);
  if (e.floor.passed === "best")
    parts.push(`below min_score ${e.floor.minScore}, kept as the best there was`);
  if (e.mmr && e.mmr.rankBefore !== position) {
    parts.push(
      `MMR λ ${e.mmr.lambda}: similarity ${e.mmr.redundancy.toFixed(2)} to a hit above, #${e.mmr.rankBefore} by score`,
    );
  }
  return parts.join("; ");
}
