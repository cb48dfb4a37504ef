import { z } from "zod";
import { aString, idString, rfc3339 } from "../common.js";
import { defineContract } from "../registry.js";
import { feedbackScore, feedbackStatus } from "./runtime-event.js";

const text = aString().min(1, "must not be empty");

/**
 * Where a checkpoint stands. The seed shows `blocked`; the rest cover a checkpoint's life so that an importer
 * can tell the last reached step from the one that stopped the session.
 */
export const CHECKPOINT_STATUSES = [
  "pending",
  "in_progress",
  "completed",
  "blocked",
  "failed",
  "skipped",
] as const;
export type CheckpointStatus = (typeof CHECKPOINT_STATUSES)[number];

export const operatorCheckpointSchema = z.strictObject({
  checkpoint_id: idString,
  occurred_at: rfc3339,
  step: text,
  status: z.enum(CHECKPOINT_STATUSES, `must be one of ${CHECKPOINT_STATUSES.join(", ")}`),
  missing_capabilities: z.array(text).optional(),
});
export type OperatorCheckpoint = z.output<typeof operatorCheckpointSchema>;

export const operatorSessionArtifactSchema = z.strictObject({
  artifact_kind: z.literal("openclaw_operator_session", "must be openclaw_operator_session"),
  schema_version: z.literal("1.0", "must be 1.0"),
  source: text,
  recorded_at: rfc3339,
  session: z.strictObject({
    session_id: idString,
    task: text,
    started_at: rfc3339,
    operator: text,
    selected_skill_ids: z.array(idString),
  }),
  // Checkpoint ids are unique: the import keeps the timeline in metadata and names the last checkpoint by id.
  timeline: z.array(operatorCheckpointSchema).superRefine((timeline, ctx) => {
    const seen = new Set<string>();
    for (const [i, checkpoint] of timeline.entries()) {
      const id = checkpoint.checkpoint_id;
      if (seen.has(id)) {
        ctx.addIssue({
          code: "custom",
          path: [i, "checkpoint_id"],
          message: `repeats checkpoint id ${id}`,
          input: id,
        });
      }
      seen.add(id);
    }
  }),
  // Present once the session reached a terminal outcome; it becomes the session_feedback event on import.
  outcome: z
    .strictObject({
      occurred_at: rfc3339,
      status: feedbackStatus,
      score: feedbackScore,
      comment: aString().optional(),
    })
    .optional(),
  handoff: z.strictObject({ summary: text, next_action: text }).optional(),
});
export type OperatorSessionArtifact = z.output<typeof operatorSessionArtifactSchema>;

export const operatorSessionContract = defineContract({
  kind: "openclaw-operator-session",
  seed: "004",
  title: "OpenClaw operator session artifact",
  description:
    "A local operator session accepted by openclaw-import: the session, its checkpoint timeline (unique " +
    "checkpoint ids), an optional terminal outcome and an optional handoff for the next operator.",
  format: "json",
  schema: operatorSessionArtifactSchema,
});
