import { z } from "zod";
import { anyId, aString, jsonObject, rfc3339, uuid } from "../common.js";
import { defineContract } from "../registry.js";
import { RUNTIME_EVENT_CONTRACT_NAME, RUNTIME_EVENT_CONTRACT_VERSION } from "./runtime-envelope.js";
import { feedbackScore, feedbackStatus } from "./runtime-event.js";

const text = aString().min(1, "must not be empty");
const strings = z.array(aString(), "must be a list of strings");

/**
 * One session_feedback event as the evolution pipeline consumes it (seed 004 "session_feedback is projected into
 * a ProjectedFeedbackRecord"), flat, with the lineage the seed names: contract_name, contract_version,
 * source_envelope_id, source_event_id and projected_at. record_id is derived from the two source ids, so
 * projecting the same envelope again gives the same record.
 */
export const projectedFeedbackRecordSchema = z.strictObject({
  record_id: uuid,
  session_id: anyId,
  task: text,
  status: feedbackStatus,
  score: feedbackScore,
  comment: aString().nullable(),
  selected_skill_ids: strings,
  missing_capabilities: strings,
  steps: strings,
  metadata: jsonObject,
  occurred_at: rfc3339,
  contract_name: z.literal(RUNTIME_EVENT_CONTRACT_NAME),
  contract_version: z.literal(RUNTIME_EVENT_CONTRACT_VERSION),
  source_envelope_id: anyId,
  source_event_id: anyId,
  projected_at: rfc3339,
});
export type ProjectedFeedbackRecord = z.output<typeof projectedFeedbackRecordSchema>;

/** A session IronClaw routed (seed 004 "events.jsonl: routed sessions"): the skills and tools it started with. */
export const routedSessionRecordSchema = z.strictObject({
  record_kind: z.literal("routed_session"),
  record_id: uuid,
  session_id: anyId,
  task: text,
  selected_skill_ids: strings,
  tools: strings,
  user_id: anyId.nullable(),
  metadata: jsonObject,
  occurred_at: rfc3339,
});
export type RoutedSessionRecord = z.output<typeof routedSessionRecordSchema>;

/** Feedback an operator or user gave directly (seed 004 "direct operator feedback records"). */
export const directFeedbackRecordSchema = z.strictObject({
  record_kind: z.literal("direct_feedback"),
  record_id: uuid,
  session_id: anyId,
  task: text,
  status: feedbackStatus,
  score: feedbackScore,
  comment: aString().nullable(),
  user_id: anyId.nullable(),
  metadata: jsonObject,
  occurred_at: rfc3339,
});
export type DirectFeedbackRecord = z.output<typeof directFeedbackRecordSchema>;

/** One line of events.jsonl. */
export const evolutionEventRecordSchema = z.discriminatedUnion("record_kind", [
  routedSessionRecordSchema,
  directFeedbackRecordSchema,
]);
export type EvolutionEventRecord = z.output<typeof evolutionEventRecordSchema>;

export const projectedFeedbackRecordContract = defineContract({
  kind: "projected-feedback-record",
  seed: "004",
  title: "Projected feedback record",
  description:
    "A session_feedback event projected for the evolution pipeline (one line of projected_feedback.jsonl), " +
    "with its lineage back to the raw envelope.",
  format: "json",
  schema: projectedFeedbackRecordSchema,
});

export const evolutionEventRecordContract = defineContract({
  kind: "evolution-event-record",
  seed: "004",
  title: "Routed session or direct feedback record",
  description: "One line of events.jsonl: a session IronClaw routed, or feedback given on it directly.",
  format: "json",
  schema: evolutionEventRecordSchema,
});
