import type { FeedbackSource } from "./feedback-set.js";

export type ProposalKind = "skill_prompt_metadata" | "capability_instruction";
export type Readiness = "ready_for_promotion" | "operator_review_required" | "blocked";
export type RiskLevel = "low" | "medium" | "high";

/**
 * The exact change a proposal makes: one line appended to an instruction file of a brain (created with `header`
 * when missing). The text before and after is computed against the brain's file when it is promoted.
 */
export interface ProposedChange {
  operation: "append_line";
  /** Relative to the brain: instructions/<name>.md, a file that enters the system prompt. */
  path: string;
  /** The new file's first lines, when the file does not exist yet. */
  header: string;
  line: string;
}

/** One feedback record behind a proposal, back to the raw envelope it was projected from (null for direct feedback). */
export interface EvidenceRecord {
  record_id: string;
  source: FeedbackSource;
  session_id: string;
  status: string;
  score: number;
  comment: string | null;
  occurred_at: string;
  source_envelope_id: string | null;
  source_event_id: string | null;
  negative: boolean;
}

export interface GateCheck {
  name: string;
  rule: string;
  threshold: number;
  observed: number;
  met: boolean;
}

export interface Proposal {
  /** Derived from kind, subject and change: the same change is always the same proposal. */
  proposal_id: string;
  kind: ProposalKind;
  /** The skill id or the missing capability the feedback named. */
  subject: string;
  summary: string;
  target: { brain: "user"; file_kind: "instruction_file"; path: string };
  change: ProposedChange;
  evidence: {
    sessions: number;
    negative_sessions: number;
    mean_score: number;
    records: EvidenceRecord[];
  };
  gate: { name: "feedback_evidence_gate"; passed: boolean; checks: GateCheck[] };
  readiness: Readiness;
  readiness_reasons: string[];
  risk: { level: RiskLevel; reasons: string[] };
  operator_actions: Record<"approve" | "reject" | "promote_dry_run" | "promote" | "rollback", string>;
  rollback: { strategy: "restore_previous_text"; path: string; note: string };
}

/** The order proposals and review entries are listed in: by kind, then subject (code-unit order, stable bytes). */
export function byKindThenSubject(
  a: { kind: string; subject: string },
  b: { kind: string; subject: string },
): number {
  if (a.kind !== b.kind) return a.kind < b.kind ? -1 : 1;
  return a.subject < b.subject ? -1 : a.subject > b.subject ? 1 : 0;
}
