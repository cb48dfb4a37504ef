import type { RuntimeSessionReport } from "./runtime-session-report.js";

const orNone = (items: readonly string[]): string[] =>
  items.length === 0 ? ["- none"] : items.map((i) => `- ${i}`);
const optional = (value: unknown): string =>
  value === null || value === undefined || value === "" ? "n/a" : String(value);

/** The same report for a person to read; every line comes from the JSON report, nothing is added. */
export function renderRuntimeSessionMarkdown(report: RuntimeSessionReport): string {
  const outcome = report.raw_session_outcome;
  const { handoff } = report;
  const checkpoint = handoff.last_checkpoint;
  return [
    `# Runtime session report: ${report.session_id}`,
    "",
    `- Task: ${report.task}`,
    `- Sources: ${report.sources.join(", ")}`,
    "",
    "## Raw session outcome",
    `- Status: ${outcome.status}`,
    `- Score: ${optional(outcome.score)}`,
    `- Comment: ${optional(outcome.comment)}`,
    `- Steps: ${outcome.steps.length === 0 ? "none" : outcome.steps.join(" -> ")}`,
    `- Started events: ${outcome.started_event_count}`,
    `- Feedback events: ${outcome.feedback_event_count}`,
    "",
    "## Selected skills",
    ...orNone(report.selected_skill_ids),
    "",
    "## Missing capabilities",
    ...orNone(report.missing_capabilities),
    "",
    "## Handoff",
    `- State: ${handoff.state}`,
    `- Operator: ${optional(handoff.operator)}`,
    `- Last checkpoint: ${checkpoint ? `${optional(checkpoint.checkpoint_id)} (${optional(checkpoint.status)}): ${optional(checkpoint.step)}` : "none"}`,
    `- Summary: ${optional(handoff.summary)}`,
    `- Next action: ${optional(handoff.next_action)}`,
    "",
    "## Projected evolution signals",
    ...orNone(
      report.projected_evolution_signals.map(
        (s) =>
          `${s.signal_kind} ${s.target}: ${s.evidence_count} record(s), mean score ${s.mean_score} (${s.statuses.join(", ")})`,
      ),
    ),
    "",
    "## Promotion risk notes",
    ...orNone(report.promotion_risk_notes),
    "",
    "## Evidence",
    `- Raw envelopes: ${report.evidence.raw_envelope_count}`,
    `- Projected feedback records: ${report.evidence.projected_feedback_count}`,
    ...report.evidence.raw_envelopes.map(
      (e) => `  - envelope ${e.envelope_id} (${e.event.event_kind}, event ${e.event.event_id})`,
    ),
    ...report.evidence.projected_feedback.map(
      (r) => `  - record ${r.record_id} from envelope ${r.source_envelope_id}`,
    ),
    "",
  ].join("\n");
}
