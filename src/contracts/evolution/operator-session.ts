import { z } from "zod";
import { anyId, aString, fieldRule, jsonObject, rfc3339 } from "../common.js";
import { defineContract } from "../registry.js";
import { feedbackScore, feedbackStatus } from "./runtime-event.js";

const text = aString().min(1, "must not be empty");
const strings = z.array(aString(), "must be a list of strings");
// Either branch of the notes union reports the same rule, whichever one the issue reporter picks.
const textOrTexts = fieldRule("must be a string or a list of strings");

/**
 * The statuses the seed and real operator artifacts show for a checkpoint (`blocked` in the seed; `queued`,
 * `handoff`, `cancelled` in artifacts OpenClaw writes). The seed gives the field no list, so any non-empty
 * status is accepted; these are only the ones known to occur.
 */
export const CHECKPOINT_STATUSES = ["blocked", "queued", "handoff", "cancelled"] as const;
export type CheckpointStatus = string;

/**
 * What any section of the artifact may carry beside its own fields: the seed's import keeps "selected skills",
 * "missing capabilities", the "operator name" and "handoff notes", and real artifacts put notes, metadata,
 * missing_capabilities, selected_skill_ids and an assignee on the session, its checkpoints, the outcome and the
 * handoff alike. Notes are a text or a list of texts.
 */
const sectionExtras = {
  notes: z.union([z.string(textOrTexts), z.array(z.string(textOrTexts), textOrTexts)]).optional(),
  metadata: jsonObject.optional(),
  missing_capabilities: strings.optional(),
  selected_skill_ids: strings.optional(),
  assignee: text.optional(),
};

/** One checkpoint of the timeline (seed 004: checkpoint_id, occurred_at, step, status, missing_capabilities). */
export const operatorCheckpointSchema = z.looseObject({
  ...sectionExtras,
  checkpoint_id: anyId,
  occurred_at: rfc3339,
  step: text,
  status: text,
});
export type OperatorCheckpoint = z.output<typeof operatorCheckpointSchema>;

/**
 * The OpenClaw operator session artifact accepted by openclaw-import (seed 004), keyed as the seed prints it.
 * What the import needs is required: the session it becomes (`session_id`, `task`: "session_id: required",
 * "task: required" once adapted into events), its ordered checkpoints ("carries the ordered checkpoint list as
 * steps"), and an outcome only "when the artifact includes a terminal outcome", which becomes a
 * session_feedback event and so takes that event's status and score rules. The operator is kept when named
 * ("operator name"), not required. Checkpoint ids may repeat: the import keeps the timeline in order and the
 * last checkpoint is the last entry, whatever its id.
 */
export const operatorSessionArtifactSchema = z.looseObject({
  artifact_kind: z.literal("openclaw_operator_session", "must be openclaw_operator_session"),
  schema_version: z.literal("1.0", "must be 1.0"),
  source: text,
  recorded_at: rfc3339,
  session: z.looseObject({
    ...sectionExtras,
    session_id: anyId,
    task: text,
    started_at: rfc3339,
    operator: text.optional(),
  }),
  timeline: z.array(operatorCheckpointSchema),
  outcome: z
    .looseObject({
      ...sectionExtras,
      occurred_at: rfc3339,
      status: feedbackStatus,
      score: feedbackScore,
      comment: aString().optional(),
    })
    .optional(),
  handoff: z.looseObject({ ...sectionExtras, summary: text, next_action: text }).optional(),
});
export type OperatorSessionArtifact = z.output<typeof operatorSessionArtifactSchema>;

export const operatorSessionContract = defineContract({
  kind: "openclaw-operator-session",
  seed: "004",
  title: "OpenClaw operator session artifact",
  description:
    "A local operator session accepted by openclaw-import: the session, its checkpoint timeline, an optional " +
    "terminal outcome and an optional handoff for the next operator.",
  format: "json",
  schema: operatorSessionArtifactSchema,
});
