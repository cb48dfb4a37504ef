import { ConflictError, InvalidInputError, NotFoundError } from "../../core/index.js";
import type { PromotionChange } from "./promotion-applier.js";
import {
  byKindThenSubject,
  type Proposal,
  type ProposalKind,
  type ProposedChange,
  type Readiness,
  type RiskLevel,
} from "./proposal.js";

export type ReviewStatus = "pending" | "approved" | "rejected" | "promoted" | "rolled_back";
export type ReviewAction = "approve" | "reject" | "promote" | "rollback";

export interface ReviewDecision {
  action: ReviewAction;
  operator: string;
  reason: string | null;
  at: string;
}

/** What a promotion wrote, kept so it can be rolled back exactly. */
export interface PromotionRecord {
  path: string;
  before: string | null;
  after: string;
  before_sha256: string | null;
  after_sha256: string;
  rollback_ref: string;
  promoted_at: string;
}

export interface ReviewEntry {
  proposal_id: string;
  kind: ProposalKind;
  subject: string;
  target_path: string;
  readiness: Readiness;
  readiness_reasons: string[];
  risk_level: RiskLevel;
  status: ReviewStatus;
  /** The change as it was proposed: what an approval approves. */
  change: ProposedChange;
  /** Whether the latest evolution run still proposes it (evidence is append-only; the policy may change). */
  in_latest_report: boolean;
  history: ReviewDecision[];
  promotion: PromotionRecord | null;
  /**
   * A change handed to the applier whose outcome is not recorded yet: persisted before the write, cleared after.
   * Found set after a restart, it is settled by looking at the file (see settleInterrupted).
   */
  pending_promotion?: (PromotionChange & { prepared_at: string }) | null;
}

/** reports/latest_operator_review.json: every proposal ever proposed, with its decisions, restart-safe. */
export interface ReviewQueue {
  report_kind: "operator_review_queue";
  entries: ReviewEntry[];
}

export const emptyQueue = (): ReviewQueue => ({ report_kind: "operator_review_queue", entries: [] });

/** Brings the queue up to the latest proposals: new ones wait as pending; decided ones keep their decisions. */
export function mergeProposals(queue: ReviewQueue, proposals: readonly Proposal[]): ReviewQueue {
  const latest = new Map(proposals.map((p) => [p.proposal_id, p]));
  const entries = queue.entries.map((e) => {
    const p = latest.get(e.proposal_id);
    return p
      ? {
          ...e,
          readiness: p.readiness,
          readiness_reasons: p.readiness_reasons,
          risk_level: p.risk.level,
          in_latest_report: true,
        }
      : { ...e, in_latest_report: false };
  });
  const known = new Set(entries.map((e) => e.proposal_id));
  for (const p of proposals) {
    if (known.has(p.proposal_id)) continue;
    entries.push({
      proposal_id: p.proposal_id,
      kind: p.kind,
      subject: p.subject,
      target_path: p.target.path,
      readiness: p.readiness,
      readiness_reasons: p.readiness_reasons,
      risk_level: p.risk.level,
      status: "pending",
      change: p.change,
      in_latest_report: true,
      history: [],
      promotion: null,
      pending_promotion: null,
    });
  }
  entries.sort(byKindThenSubject);
  return { report_kind: "operator_review_queue", entries };
}

export function findEntry(queue: ReviewQueue, proposalId: string): ReviewEntry {
  const entry = queue.entries.find((e) => e.proposal_id === proposalId);
  if (!entry) throw new NotFoundError("proposal", proposalId);
  return entry;
}

export interface Actor {
  operator: string;
  reason?: string | null;
}

export function checkActor(actor: Actor): void {
  if (actor.operator.trim() === "") throw new InvalidInputError("operator", "must not be empty");
}

/** Why `action` may not happen to this entry now, or undefined. The state machine in one place. */
export function refusal(entry: ReviewEntry, action: ReviewAction): string | undefined {
  const id = entry.proposal_id;
  const decidedBy = [...entry.history].reverse().find((d) => d.action === "approve" || d.action === "reject");
  const by = decidedBy ? ` by ${decidedBy.operator}` : "";
  if (action === "rollback")
    return entry.status === "promoted"
      ? undefined
      : `proposal ${id} is ${entry.status}, not promoted: there is nothing to roll back`;
  if (entry.status === "promoted")
    return `proposal ${id} is already promoted (rollback_ref ${entry.promotion?.rollback_ref}): roll it back first`;
  if (action === "reject")
    return entry.status === "rejected" ? `proposal ${id} is already rejected${by}` : undefined;
  if (entry.readiness === "blocked")
    return `proposal ${id} is blocked: ${entry.readiness_reasons.join("; ")}`;
  if (action === "approve")
    return entry.status === "approved" ? `proposal ${id} is already approved${by}` : undefined;
  if (entry.status === "rejected")
    return `proposal ${id} was rejected${by}: a rejected proposal is never promoted`;
  if (entry.status !== "approved") return `proposal ${id} is ${entry.status}: approve it before promoting`;
  return undefined;
}

const NEXT: Record<ReviewAction, ReviewStatus> = {
  approve: "approved",
  reject: "rejected",
  promote: "promoted",
  rollback: "rolled_back",
};

/** The queue with `action` applied to one entry; refused (ConflictError naming the id) where the machine forbids it. */
export function transition(
  queue: ReviewQueue,
  proposalId: string,
  action: ReviewAction,
  decision: Actor & { at: string },
  promotion?: PromotionRecord | null,
): ReviewQueue {
  checkActor(decision);
  const entry = findEntry(queue, proposalId);
  const refused = refusal(entry, action);
  if (refused) throw new ConflictError(refused);
  const record: ReviewDecision = {
    action,
    operator: decision.operator,
    reason: decision.reason ?? null,
    at: decision.at,
  };
  const next: ReviewEntry = {
    ...entry,
    status: NEXT[action],
    history: [...entry.history, record],
    promotion: promotion === undefined ? entry.promotion : promotion,
  };
  return { ...queue, entries: queue.entries.map((e) => (e.proposal_id === proposalId ? next : e)) };
}

/** The queue with one entry's pending promotion set (before a write) or cleared (after). */
export function withPending(
  queue: ReviewQueue,
  proposalId: string,
  pending: ReviewEntry["pending_promotion"],
): ReviewQueue {
  return {
    ...queue,
    entries: queue.entries.map((e) =>
      e.proposal_id === proposalId ? { ...e, pending_promotion: pending } : e,
    ),
  };
}
