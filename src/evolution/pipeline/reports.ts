import type { FeedbackSet } from "./feedback-set.js";
import type { GatePolicy } from "./gate-policy.js";
import type { Proposal, Readiness, RiskLevel } from "./proposal.js";
import type { ReviewQueue, ReviewStatus } from "./review-queue.js";

/** reports/latest_evolution_report.json: the proposals with their gate, readiness, risk and rollback metadata. */
export interface EvolutionReport {
  report_kind: "evolution_report";
  generated_from: FeedbackSet["counts"] & { latest_record_at: string | null };
  gate_policy: GatePolicy;
  proposals: Proposal[];
}

export interface GovernanceRow {
  proposal_id: string;
  kind: Proposal["kind"];
  subject: string;
  target_path: string;
  readiness: Readiness;
  readiness_reasons: string[];
  risk_level: RiskLevel;
  review_status: ReviewStatus;
  last_decision: { action: string; operator: string; reason: string | null; at: string } | null;
  rollback_ref: string | null;
  in_latest_report: boolean;
  next_action: string;
}

/** reports/latest_governance_report.json: promotion readiness and rollback state, one row per proposal. */
export interface GovernanceReport {
  report_kind: "governance_report";
  generated_from: EvolutionReport["generated_from"];
  counts: {
    readiness: Record<Readiness, number>;
    risk: Record<RiskLevel, number>;
    review: Record<ReviewStatus, number>;
  };
  proposals: GovernanceRow[];
}

export function buildEvolutionReport(
  set: FeedbackSet,
  policy: GatePolicy,
  proposals: Proposal[],
): EvolutionReport {
  return {
    report_kind: "evolution_report",
    generated_from: { ...set.counts, latest_record_at: set.latest_record_at },
    gate_policy: policy,
    proposals,
  };
}

function nextAction(row: Omit<GovernanceRow, "next_action">, proposal: Proposal | undefined): string {
  const id = row.proposal_id;
  switch (row.review_status) {
    case "promoted":
      return proposal?.operator_actions.rollback ?? `ironclaw evolution rollback ${id} --user <user>`;
    case "approved":
      return (
        proposal?.operator_actions.promote_dry_run ??
        `ironclaw evolution promote ${id} --user <user> --dry-run`
      );
    case "rejected":
      return "none: rejected";
    default:
      if (row.readiness === "blocked") return "none: blocked until the gate passes";
      return `ironclaw evolution review approve|reject ${id} --reason '<why>'`;
  }
}

export function buildGovernanceReport(evolution: EvolutionReport, queue: ReviewQueue): GovernanceReport {
  const byId = new Map(evolution.proposals.map((p) => [p.proposal_id, p]));
  const counts: GovernanceReport["counts"] = {
    readiness: { ready_for_promotion: 0, operator_review_required: 0, blocked: 0 },
    risk: { low: 0, medium: 0, high: 0 },
    review: { pending: 0, approved: 0, rejected: 0, promoted: 0, rolled_back: 0 },
  };
  const proposals = queue.entries.map((e) => {
    counts.readiness[e.readiness] += 1;
    counts.risk[e.risk_level] += 1;
    counts.review[e.status] += 1;
    const last = e.history[e.history.length - 1];
    const row = {
      proposal_id: e.proposal_id,
      kind: e.kind,
      subject: e.subject,
      target_path: e.target_path,
      readiness: e.readiness,
      readiness_reasons: e.readiness_reasons,
      risk_level: e.risk_level,
      review_status: e.status,
      last_decision: last ?? null,
      rollback_ref: e.status === "promoted" ? (e.promotion?.rollback_ref ?? null) : null,
      in_latest_report: e.in_latest_report,
    };
    return { ...row, next_action: nextAction(row, byId.get(e.proposal_id)) };
  });
  return { report_kind: "governance_report", generated_from: evolution.generated_from, counts, proposals };
}

/** The same report for a person: one section per proposal, in the report's order. */
export function renderGovernanceMarkdown(report: GovernanceReport): string {
  const { counts, generated_from: from } = report;
  const lines = [
    "# Evolution governance report",
    "",
    `Feedback: ${from.projected_feedback} projected record(s), ${from.direct_feedback} direct feedback record(s), ` +
      `${from.routed_sessions} routed session(s); latest record ${from.latest_record_at ?? "none"}.`,
    "",
    `Readiness: ${counts.readiness.ready_for_promotion} ready for promotion, ${counts.readiness.operator_review_required} ` +
      `operator review required, ${counts.readiness.blocked} blocked.`,
    `Risk: ${counts.risk.low} low, ${counts.risk.medium} medium, ${counts.risk.high} high.`,
    `Review: ${counts.review.pending} pending, ${counts.review.approved} approved, ${counts.review.rejected} rejected, ` +
      `${counts.review.promoted} promoted, ${counts.review.rolled_back} rolled back.`,
  ];
  if (report.proposals.length === 0)
    lines.push("", "No proposals: the feedback set gives nothing to act on.");
  for (const row of report.proposals) {
    lines.push(
      "",
      `## ${row.kind}: ${row.subject}`,
      "",
      `- Proposal: \`${row.proposal_id}\``,
      `- Target: \`${row.target_path}\``,
      `- Readiness: ${row.readiness} (${row.readiness_reasons.join("; ")})`,
      `- Risk: ${row.risk_level}`,
      `- Review: ${row.review_status}` +
        (row.last_decision
          ? ` (last: ${row.last_decision.action} by ${row.last_decision.operator} at ${row.last_decision.at}` +
            `${row.last_decision.reason ? `: ${row.last_decision.reason}` : ""})`
          : ""),
      `- Rollback: ${row.rollback_ref ?? "nothing promoted"}`,
      `- Next: \`${row.next_action}\``,
    );
    if (!row.in_latest_report) lines.push("- No longer proposed by the latest evolution run.");
  }
  return `${lines.join("\n")}\n`;
}
