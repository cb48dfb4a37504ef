import { z } from "zod";
import { projectedFeedbackRecordSchema } from "./evolution-records.js";

// The warden's governance surface (issue 37): the governance report, one proposal with its evidence chain, and
// the operator's review, promotion and rollback. Requests are exact; the reports the pipeline builds are
// described here for the OpenAPI document and the UI, loose where they carry seed 004 data as it was received.

const proposalId = z
  .string({ error: "must be a proposal id" })
  .regex(/^[0-9a-f-]{36}$/, "must be a proposal id (a uuid from the governance report)");
const reason = z
  .string({ error: "must be a string" })
  .max(2000, "must be at most 2000 characters")
  .optional();

/** GET /api/evolution/proposals/{id}. */
export const proposalParamsSchema = z.strictObject({ id: proposalId });

/** POST /api/evolution/review: approve or reject one proposal, with why. */
export const governanceReviewBodySchema = z.strictObject({
  proposal_id: proposalId,
  decision: z.enum(["approve", "reject"], { error: "must be approve or reject" }),
  reason,
});

/** POST /api/evolution/promote: every approved proposal, or those named; a dry run writes no brain. */
export const governancePromoteBodySchema = z.strictObject({
  dry_run: z.boolean({ error: "must be true or false" }).optional(),
  proposal_ids: z.array(proposalId, { error: "must be a list of proposal ids" }).optional(),
});

/** POST /api/evolution/rollback: restores the file a promoted proposal changed. */
export const governanceRollbackBodySchema = z.strictObject({ proposal_id: proposalId, reason });

const decisionSchema = z.object({
  action: z.string(),
  operator: z.string(),
  reason: z.string().nullable(),
  at: z.string(),
});

export const governanceRowSchema = z.object({
  proposal_id: z.string(),
  kind: z.enum(["skill_prompt_metadata", "capability_instruction"]),
  subject: z.string(),
  target_path: z.string(),
  readiness: z.enum(["ready_for_promotion", "operator_review_required", "blocked"]),
  readiness_reasons: z.array(z.string()),
  risk_level: z.enum(["low", "medium", "high"]),
  review_status: z.enum(["pending", "approved", "rejected", "promoted", "rolled_back"]),
  last_decision: decisionSchema.nullable(),
  rollback_ref: z.string().nullable(),
  in_latest_report: z.boolean(),
  next_action: z.string(),
});

/** reports/latest_governance_report.json as the pipeline builds it. */
export const governanceReportSchema = z.object({
  report_kind: z.literal("governance_report"),
  generated_from: z.record(z.string(), z.unknown()),
  counts: z.record(z.string(), z.record(z.string(), z.number())),
  proposals: z.array(governanceRowSchema),
});

const gateCheckSchema = z.object({
  name: z.string(),
  rule: z.string(),
  threshold: z.number(),
  observed: z.number(),
  met: z.boolean(),
});

/** One evidence record of a proposal, back to the raw envelope exactly as received (none for direct feedback). */
export const evidenceLinkSchema = z.object({
  record_id: z.string(),
  source: z.enum(["projected_feedback", "direct_feedback"]),
  session_id: z.string(),
  status: z.string(),
  score: z.number(),
  comment: z.string().nullable(),
  occurred_at: z.string(),
  /** The warden user who sent the session's events; null for the host's. */
  submitted_by: z.string().nullable(),
  projected: projectedFeedbackRecordSchema.nullable(),
  raw_envelope: z.record(z.string(), z.unknown()).nullable(),
});

/** GET /api/evolution/proposals/{id}: the proposal, its review state, whose brain it changes, and its evidence. */
export const proposalDetailSchema = z.object({
  proposal: z.object({
    proposal_id: z.string(),
    kind: z.string(),
    subject: z.string(),
    summary: z.string(),
    change: z.object({ operation: z.string(), path: z.string(), header: z.string(), line: z.string() }),
    gate: z.object({ name: z.string(), passed: z.boolean(), checks: z.array(gateCheckSchema) }),
    readiness: z.string(),
    readiness_reasons: z.array(z.string()),
    risk: z.object({ level: z.string(), reasons: z.array(z.string()) }),
  }),
  review: governanceRowSchema,
  /** The user whose brain a promotion changes, or why none can be chosen. */
  target: z.object({ user_id: z.string().nullable(), refusal: z.string().nullable() }),
  evidence: z.array(evidenceLinkSchema),
});

export const reviewResultSchema = z.object({
  proposal_id: z.string(),
  status: z.string(),
  history: z.array(decisionSchema),
});

/** One change of a promotion (or dry run), with the user whose brain it is for. */
export const promotionChangeSchema = z.object({
  proposal_id: z.string(),
  user_id: z.string().nullable(),
  path: z.string(),
  outcome: z.enum(["would_apply", "applied", "already_present", "refused", "recovered"]),
  reason: z.string().nullable(),
  before: z.string().nullable(),
  after: z.string().nullable(),
  rollback_ref: z.string().nullable(),
});

export const promotionResultSchema = z.object({
  dry_run: z.boolean(),
  at: z.string(),
  operator: z.string(),
  changes: z.array(promotionChangeSchema),
});

export const rollbackResultSchema = z.object({
  proposal_id: z.string(),
  user_id: z.string(),
  rolled_back: z.boolean(),
});

export type GovernanceReviewBody = z.output<typeof governanceReviewBodySchema>;
export type GovernancePromoteBody = z.output<typeof governancePromoteBodySchema>;
export type ProposalDetail = z.output<typeof proposalDetailSchema>;
export type EvidenceLink = z.output<typeof evidenceLinkSchema>;
export type PromotionResult = z.output<typeof promotionResultSchema>;
export type PromotionResultChange = z.output<typeof promotionChangeSchema>;
export type GovernanceReportData = z.output<typeof governanceReportSchema>;
export type GovernanceRowData = z.output<typeof governanceRowSchema>;
