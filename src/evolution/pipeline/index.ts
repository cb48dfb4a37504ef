export { BrainFileApplier } from "./brain-file-applier.js";
export { EvolutionPipeline, type PipelineOptions, type PipelineView } from "./evolution-pipeline.js";
export {
  buildFeedbackSet,
  type FeedbackItem,
  type FeedbackSet,
  isNegative,
  WEAK_SCORE,
} from "./feedback-set.js";
export { DEFAULT_GATE_POLICY, type GatePolicy, readinessOf, riskOf } from "./gate-policy.js";
export { PIPELINE_FILES } from "./pipeline-files.js";
export type { ArtifactChange, ChangeOutcome, PromotionArtifact } from "./promotion.js";
export type { ApplyResult, PromotionApplier, PromotionChange, RollbackResult } from "./promotion-applier.js";
export type {
  EvidenceRecord,
  GateCheck,
  Proposal,
  ProposalKind,
  ProposedChange,
  Readiness,
  RiskLevel,
} from "./proposal.js";
export { buildProposals, skillInstructionPath } from "./proposals.js";
export type { EvolutionReport, GovernanceReport, GovernanceRow } from "./reports.js";
export { renderGovernanceMarkdown } from "./reports.js";
export type { Actor, ReviewDecision, ReviewEntry, ReviewQueue, ReviewStatus } from "./review-queue.js";
export type { WorkflowState, WorkflowStep } from "./workflow.js";
