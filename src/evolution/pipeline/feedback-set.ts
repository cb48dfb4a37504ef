import type { EvolutionEventRecord, FeedbackStatus, ProjectedFeedbackRecord } from "../../contracts/index.js";

/** Where a feedback item came from: a projected record (projected_feedback.jsonl) or direct feedback (events.jsonl). */
export type FeedbackSource = "projected_feedback" | "direct_feedback";

/** One piece of feedback as the pipeline reads it, with its lineage back to the raw envelope where it has one. */
export interface FeedbackItem {
  record_id: string;
  source: FeedbackSource;
  session_id: string;
  task: string;
  status: FeedbackStatus;
  score: number;
  comment: string | null;
  /** The record's own skills, or for direct feedback those of the session's routed_session records. */
  selected_skill_ids: string[];
  missing_capabilities: string[];
  occurred_at: string;
  source_envelope_id: string | null;
  source_event_id: string | null;
}

/** The pipeline's whole input (seed 004: direct operator feedback and projected records, never raw envelopes). */
export interface FeedbackSet {
  items: FeedbackItem[];
  counts: { projected_feedback: number; direct_feedback: number; routed_sessions: number };
  /** The latest time any record names: the time the reports built from this set speak for. */
  latest_record_at: string | null;
}

/** Below this score feedback counts against a session even when its status says success (as the signals read it). */
export const WEAK_SCORE = 0.5;

export function isNegative(item: Pick<FeedbackItem, "status" | "score">): boolean {
  return item.status !== "success" || item.score < WEAK_SCORE;
}

/** Orders items by time, then id, so every reading of the same records walks them in the same order. */
export function compareItems(a: FeedbackItem, b: FeedbackItem): number {
  const byTime = Date.parse(a.occurred_at) - Date.parse(b.occurred_at);
  if (byTime !== 0) return byTime;
  return a.record_id < b.record_id ? -1 : a.record_id > b.record_id ? 1 : 0;
}

/** The latest of some RFC 3339 times, compared as instants (offsets differ between sources). */
function latestTime(times: readonly string[]): string | null {
  let latest: string | null = null;
  for (const time of times) if (latest === null || Date.parse(time) > Date.parse(latest)) latest = time;
  return latest;
}

/** Joins projected records and events.jsonl into the feedback set; routed sessions only lend their skills. */
export function buildFeedbackSet(
  projected: readonly ProjectedFeedbackRecord[],
  events: readonly EvolutionEventRecord[],
): FeedbackSet {
  const routedSkills = new Map<string, Set<string>>();
  let routed = 0;
  for (const event of events) {
    if (event.record_kind !== "routed_session") continue;
    routed += 1;
    const skills = routedSkills.get(event.session_id) ?? new Set<string>();
    for (const skill of event.selected_skill_ids) skills.add(skill);
    routedSkills.set(event.session_id, skills);
  }
  const items: FeedbackItem[] = projected.map((r) => ({
    record_id: r.record_id,
    source: "projected_feedback",
    session_id: r.session_id,
    task: r.task,
    status: r.status,
    score: r.score,
    comment: r.comment,
    selected_skill_ids: [...new Set(r.selected_skill_ids)].sort(),
    missing_capabilities: r.missing_capabilities,
    occurred_at: r.occurred_at,
    source_envelope_id: r.source_envelope_id,
    source_event_id: r.source_event_id,
  }));
  for (const event of events) {
    if (event.record_kind !== "direct_feedback") continue;
    items.push({
      record_id: event.record_id,
      source: "direct_feedback",
      session_id: event.session_id,
      task: event.task,
      status: event.status,
      score: event.score,
      comment: event.comment,
      selected_skill_ids: [...(routedSkills.get(event.session_id) ?? [])].sort(),
      missing_capabilities: [],
      occurred_at: event.occurred_at,
      source_envelope_id: null,
      source_event_id: null,
    });
  }
  items.sort(compareItems);
  return {
    items,
    counts: {
      projected_feedback: projected.length,
      direct_feedback: items.length - projected.length,
      routed_sessions: routed,
    },
    latest_record_at: latestTime([
      ...projected.map((r) => r.projected_at),
      ...events.map((e) => e.occurred_at),
    ]),
  };
}
