import type { AgentRuntime } from "../agent/index.js";
import type { BrainQuery, MemoryForgetAnswer, MemoryHit } from "../contracts/cell/index.js";
import type { RankingExplanation, SearchHit } from "../memory/index.js";

// The memory inspector's answers as the wire carries them: search hits with how each got its place, and a
// forget asked for by the brain's owner.

export function hitToWire(h: SearchHit): MemoryHit {
  return {
    id: h.id,
    path: h.path,
    headings: h.headings,
    start_line: h.startLine,
    end_line: h.endLine,
    text: h.text,
    score: h.score,
    semantic: h.semantic,
    lexical: h.lexical,
    explanation: explanationToWire(h.explanation),
  };
}

function explanationToWire(e: RankingExplanation): NonNullable<MemoryHit["explanation"]> {
  const r = e.recency;
  return {
    fusion: e.fusion,
    semantic_rank: e.semanticRank,
    lexical_rank: e.lexicalRank,
    coverage: e.coverage,
    fused: e.fused,
    recency: {
      source: r.source,
      ...(r.date === undefined ? {} : { date: r.date }),
      ...(r.ageDays === undefined ? {} : { age_days: r.ageDays }),
      ...(r.halfLifeDays === undefined ? {} : { half_life_days: r.halfLifeDays }),
      factor: r.factor,
    },
    floor: { min_score: e.floor.minScore, passed: e.floor.passed },
    ...(e.mmr
      ? { mmr: { lambda: e.mmr.lambda, redundancy: e.mmr.redundancy, rank_before: e.mmr.rankBefore } }
      : {}),
    summary: e.summary,
  };
}

/**
 * The owner's forget, through the warden: the same as the agent's memory tool (markdown, index, the runtime's
 * copies, the database's free space), recorded as the user's. Applied, it also reaches the warden's record of
 * the conversations through the MemoryForgotten notice, which is sent before this answer.
 */
export async function answerForget(
  runtime: AgentRuntime,
  query: Extract<BrainQuery, { kind: "memory_forget" }>,
  at: Date,
): Promise<MemoryForgetAnswer> {
  const report = await runtime.conversations.forget({
    target: query.target,
    apply: query.apply,
    actor: "user",
    at,
  });
  return {
    kind: "memory_forget",
    applied: report.applied,
    places: report.places.map((p) => ({
      path: p.path,
      headings: p.headings,
      start_line: p.startLine,
      end_line: p.endLine,
      hash: p.hash,
    })),
    ...(report.applied ? {} : { previews: report.previews }),
    skipped: report.skipped.map((s) => ({ path: s.path, reason: s.reason })),
    ...(report.purgeMs === undefined ? {} : { purge_ms: report.purgeMs }),
    ...(report.purgeError === undefined ? {} : { purge_error: report.purgeError }),
  };
}
