import type { CompleteRuntimeEventEnvelope, ProjectedFeedbackRecord } from "../../contracts/index.js";
import { isJsonObject } from "../../contracts/index.js";
import { InvalidInputError } from "../../core/index.js";
import { type EvolutionSignal, MIN_EVIDENCE, projectEvolutionSignals } from "./evolution-signals.js";

export const RUNTIME_SESSION_REPORT_KIND = "runtime_session_report";

/** reports/runtime_session_report_<session>.json: one session's evidence bundle for an operator. */
export interface RuntimeSessionReport {
  report_kind: typeof RUNTIME_SESSION_REPORT_KIND;
  session_id: string;
  task: string;
  sources: string[];
  raw_session_outcome: {
    status: string;
    score: number | null;
    comment: string | null;
    feedback_event_id: string | null;
    feedback_occurred_at: string | null;
    started_event_count: number;
    feedback_event_count: number;
    steps: string[];
  };
  selected_skill_ids: string[];
  missing_capabilities: string[];
  handoff: {
    state: "completed" | "awaiting_feedback";
    operator: string | null;
    last_checkpoint: Record<string, unknown> | null;
    summary: string | null;
    next_action: string | null;
  };
  projected_evolution_signals: EvolutionSignal[];
  promotion_risk_notes: string[];
  evidence: {
    raw_envelope_count: number;
    projected_feedback_count: number;
    raw_envelopes: CompleteRuntimeEventEnvelope[];
    projected_feedback: ProjectedFeedbackRecord[];
  };
}

const textOrNull = (value: unknown): string | null => (typeof value === "string" ? value : null);
const objectOrNull = (value: unknown): Record<string, unknown> | null => (isJsonObject(value) ? value : null);

/**
 * Builds one session's report from its envelopes (in the order received) and their projections; no model, no
 * clock, so the same evidence gives the same report. The outcome is the latest session_feedback; the handoff
 * state comes from what openclaw-import keeps in event metadata (operator, last_checkpoint, handoff), and is
 * empty for events that carry none.
 */
export function buildRuntimeSessionReport(
  envelopes: readonly CompleteRuntimeEventEnvelope[],
  records: readonly ProjectedFeedbackRecord[],
): RuntimeSessionReport {
  const first = envelopes[0];
  if (!first) throw new InvalidInputError("$", "must hold at least one runtime event");
  const sessionId = first.event.session_id;
  const feedback = envelopes.filter((e) => e.event.event_kind === "session_feedback");
  const latest = feedback.at(-1)?.event;
  const outcome = latest?.event_kind === "session_feedback" ? latest : undefined;
  const primary = latest ?? envelopes.at(-1)?.event ?? first.event;
  const meta = primary.metadata ?? {};
  const handoffMeta = objectOrNull(meta.handoff);
  const lastCheckpoint = objectOrNull(meta.last_checkpoint);
  const signals = projectEvolutionSignals(records);
  return {
    report_kind: RUNTIME_SESSION_REPORT_KIND,
    session_id: sessionId,
    task: primary.task,
    sources: [...new Set(envelopes.map((e) => String(e.source)))].sort(),
    raw_session_outcome: {
      status: outcome?.status ?? "incomplete",
      score: outcome?.score ?? null,
      comment: outcome?.comment ?? null,
      feedback_event_id: outcome?.event_id ?? null,
      feedback_occurred_at: outcome?.occurred_at ?? null,
      started_event_count: envelopes.length - feedback.length,
      feedback_event_count: feedback.length,
      steps: primary.steps ?? [],
    },
    selected_skill_ids: unique(envelopes.map((e) => e.event.selected_skill_ids)),
    missing_capabilities: unique(envelopes.map((e) => e.event.missing_capabilities)),
    handoff: {
      state: outcome ? "completed" : "awaiting_feedback",
      operator: textOrNull(meta.operator),
      last_checkpoint: lastCheckpoint,
      summary: textOrNull(handoffMeta?.summary),
      next_action: textOrNull(handoffMeta?.next_action),
    },
    projected_evolution_signals: signals,
    promotion_risk_notes: riskNotes(feedback.length, lastCheckpoint, signals),
    evidence: {
      raw_envelope_count: envelopes.length,
      projected_feedback_count: records.length,
      raw_envelopes: [...envelopes],
      projected_feedback: [...records],
    },
  };
}

function unique(lists: Array<string[] | undefined>): string[] {
  return [...new Set(lists.flatMap((list) => list ?? []))];
}

/** What an operator should weigh before promoting anything this session suggests, in a fixed order. */
function riskNotes(
  feedbackCount: number,
  lastCheckpoint: Record<string, unknown> | null,
  signals: readonly EvolutionSignal[],
): string[] {
  const notes: string[] = [];
  if (feedbackCount === 0)
    notes.push("No session_feedback event: the outcome is unknown and nothing was projected for evolution.");
  if (feedbackCount > 1)
    notes.push(`${feedbackCount} session_feedback events: the outcome shown is the latest one received.`);
  if (lastCheckpoint?.status === "blocked")
    notes.push(
      `The session stopped at a blocked checkpoint (${String(lastCheckpoint.checkpoint_id)}: ` +
        `${String(lastCheckpoint.step)}); its evidence covers the work before it only.`,
    );
  if (feedbackCount > 0 && signals.length === 0)
    notes.push("No evolution signal was projected from this evidence.");
  for (const signal of signals)
    if (signal.evidence_count < MIN_EVIDENCE)
      notes.push(
        `${signal.signal_kind} ${signal.target}: ${signal.evidence_count} record of the ${MIN_EVIDENCE} the ` +
          "offline gate needs; promoting it needs an operator's review.",
      );
  return notes;
}
