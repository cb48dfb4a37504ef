import type { Contract } from "../registry.js";
import { evolutionEventRecordContract, projectedFeedbackRecordContract } from "./evolution-records.js";
import { handoffBundleContract } from "./handoff-bundle.js";
import { operatorSessionContract } from "./operator-session.js";
import {
  runtimeEventBatchContract,
  runtimeEventEnvelopeContract,
  runtimeEventListContract,
} from "./runtime-envelope.js";
import { runtimeEventPayloadContract } from "./runtime-payload.js";

export {
  type CompleteRuntimeEvent,
  type CompleteRuntimeEventEnvelope,
  completeRuntimeEvent,
  type EventIdentity,
  toEnvelopes,
} from "./event-completion.js";
export {
  type DirectFeedbackRecord,
  directFeedbackRecordSchema,
  type EvolutionEventRecord,
  evolutionEventRecordContract,
  evolutionEventRecordSchema,
  type ProjectedFeedbackRecord,
  projectedFeedbackRecordContract,
  projectedFeedbackRecordSchema,
  type RoutedSessionRecord,
  routedSessionRecordSchema,
} from "./evolution-records.js";
export {
  type EvidenceLink,
  evidenceLinkSchema,
  type GovernancePromoteBody,
  type GovernanceReportData,
  type GovernanceReviewBody,
  type GovernanceRowData,
  governancePromoteBodySchema,
  governanceReportSchema,
  governanceReviewBodySchema,
  governanceRollbackBodySchema,
  governanceRowSchema,
  type PromotionResult,
  type PromotionResultChange,
  type ProposalDetail,
  promotionChangeSchema,
  promotionResultSchema,
  proposalDetailSchema,
  proposalParamsSchema,
  reviewResultSchema,
  rollbackResultSchema,
} from "./governance-api.js";
export {
  HANDOFF_BUNDLE_REPORT_KIND,
  HANDOFF_BUNDLE_SCHEMA_VERSION,
  type HandoffBundle,
  handoffBundleContract,
  handoffBundleSchema,
} from "./handoff-bundle.js";
export {
  type IngestedEnvelope,
  type IngestResult,
  ingestedEnvelopeSchema,
  ingestResultSchema,
} from "./ingest-result.js";
export {
  CHECKPOINT_STATUSES,
  type CheckpointStatus,
  type OperatorCheckpoint,
  type OperatorSessionArtifact,
  operatorCheckpointSchema,
  operatorSessionArtifactSchema,
  operatorSessionContract,
} from "./operator-session.js";
export {
  RUNTIME_EVENT_CONTRACT_NAME,
  RUNTIME_EVENT_CONTRACT_VERSION,
  type RuntimeEventBatch,
  type RuntimeEventEnvelope,
  type RuntimeEventList,
  runtimeEventBatchContract,
  runtimeEventBatchSchema,
  runtimeEventEnvelopeContract,
  runtimeEventEnvelopeSchema,
  runtimeEventListContract,
  runtimeEventListSchema,
} from "./runtime-envelope.js";
export {
  FEEDBACK_STATUSES,
  type FeedbackStatus,
  RUNTIME_EVENT_KINDS,
  RUNTIME_EVENT_SCHEMA_VERSION,
  type RuntimeEvent,
  type RuntimeEventKind,
  runtimeEventSchema,
  type SessionFeedbackEvent,
  type SessionStartedEvent,
  sessionFeedbackEventSchema,
  sessionStartedEventSchema,
} from "./runtime-event.js";
export {
  payloadForm,
  type RuntimeEventPayload,
  type RuntimeEventPayloadForm,
  runtimeEventPayloadContract,
  runtimeEventPayloadSchema,
} from "./runtime-payload.js";

/** Seed 004 (Appleseed event contract): runtime event envelopes and the operator-session artifact. */
export const evolutionContracts: Contract[] = [
  runtimeEventEnvelopeContract,
  runtimeEventListContract,
  runtimeEventBatchContract,
  runtimeEventPayloadContract,
  operatorSessionContract,
  projectedFeedbackRecordContract,
  evolutionEventRecordContract,
  handoffBundleContract,
];
