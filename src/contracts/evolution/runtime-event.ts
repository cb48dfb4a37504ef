import { z } from "zod";
import { aNumber, anyId, aString, jsonObject, rfc3339 } from "../common.js";

export const RUNTIME_EVENT_SCHEMA_VERSION = "1.1";

/** Seed 004 "session_feedback adds: status: one of success, failure, partial, cancelled, unknown". */
export const FEEDBACK_STATUSES = ["success", "failure", "partial", "cancelled", "unknown"] as const;
export type FeedbackStatus = (typeof FEEDBACK_STATUSES)[number];

export const feedbackStatus = z.enum(FEEDBACK_STATUSES, `must be one of ${FEEDBACK_STATUSES.join(", ")}`);

/** Seed 004 "score: numeric [0.0, 1.0]", inclusive. */
export const feedbackScore = aNumber()
  .min(0, "must be between 0.0 and 1.0")
  .max(1, "must be between 0.0 and 1.0");

const text = aString().min(1, "must not be empty");
const strings = z.array(aString(), "must be a list of strings");

/**
 * The fields every event body shares (seed 004 "Shared event fields"), each as the seed types it:
 * "schema_version: currently 1.1", "event_id: optional" (any non-empty string; Appleseed generates one when it is
 * omitted), "occurred_at: optional ISO 8601 timestamp", "session_id: required", "task: required", and "optional
 * list of strings" for steps, selected_skill_ids and missing_capabilities, "metadata: optional object". The
 * fields the runtime may omit are filled by `completeRuntimeEvent`, never by the schema, so that validating the
 * raw evidence never changes it.
 */
const eventFields = {
  schema_version: z
    .literal(
      RUNTIME_EVENT_SCHEMA_VERSION,
      `must be ${RUNTIME_EVENT_SCHEMA_VERSION}, the supported event schema`,
    )
    .optional(),
  event_id: anyId.optional(),
  occurred_at: rfc3339.optional(),
  session_id: anyId,
  task: text,
  steps: strings.optional(),
  selected_skill_ids: strings.optional(),
  missing_capabilities: strings.optional(),
  metadata: jsonObject.optional(),
};

// Open: "preserve the raw inbound evidence exactly as Appleseed received it". A key the seed does not name is
// kept, and `ironclaw validate` warns about it, so a typo (`scor`) is seen without losing the evidence.
export const sessionStartedEventSchema = z.looseObject({
  event_kind: z.literal("session_started"),
  ...eventFields,
});
export type SessionStartedEvent = z.output<typeof sessionStartedEventSchema>;

export const sessionFeedbackEventSchema = z.looseObject({
  event_kind: z.literal("session_feedback"),
  ...eventFields,
  status: feedbackStatus,
  score: feedbackScore,
  comment: aString().optional(),
});
export type SessionFeedbackEvent = z.output<typeof sessionFeedbackEventSchema>;

export const RUNTIME_EVENT_KINDS = ["session_started", "session_feedback"] as const;
export type RuntimeEventKind = (typeof RUNTIME_EVENT_KINDS)[number];

/** One runtime event body, discriminated by `event_kind`. */
export const runtimeEventSchema = z.discriminatedUnion(
  "event_kind",
  [sessionStartedEventSchema, sessionFeedbackEventSchema],
  {
    error: (issue) =>
      issue.code === "invalid_union"
        ? `must be one of ${RUNTIME_EVENT_KINDS.join(", ")}`
        : issue.input === undefined
          ? "is required"
          : "must be a JSON object",
  },
);
export type RuntimeEvent = z.output<typeof runtimeEventSchema>;
