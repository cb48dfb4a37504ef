import { z } from "zod";
import { aNumber, aString, idString, jsonObject, rfc3339 } from "../common.js";

export const RUNTIME_EVENT_SCHEMA_VERSION = "1.1";

export const FEEDBACK_STATUSES = ["success", "failure", "partial", "cancelled", "unknown"] as const;
export type FeedbackStatus = (typeof FEEDBACK_STATUSES)[number];

export const feedbackStatus = z.enum(FEEDBACK_STATUSES, `must be one of ${FEEDBACK_STATUSES.join(", ")}`);

/** A feedback score, [0.0, 1.0] inclusive. */
export const feedbackScore = aNumber()
  .min(0, "must be between 0.0 and 1.0")
  .max(1, "must be between 0.0 and 1.0");

const text = aString().min(1, "must not be empty");

/**
 * The fields every event body shares (seed 004 "Shared event fields"). `schema_version`, `event_id` and
 * `occurred_at` may be omitted by the runtime; they are filled by `completeRuntimeEvent`, never by the schema,
 * so that validating the raw evidence never changes it.
 */
const eventFields = {
  schema_version: z
    .literal(
      RUNTIME_EVENT_SCHEMA_VERSION,
      `must be ${RUNTIME_EVENT_SCHEMA_VERSION}, the supported event schema`,
    )
    .optional(),
  event_id: idString.optional(),
  occurred_at: rfc3339.optional(),
  session_id: idString,
  task: text,
  steps: z.array(text).optional(),
  selected_skill_ids: z.array(idString).optional(),
  missing_capabilities: z.array(text).optional(),
  metadata: jsonObject.optional(),
};

// Strict: the seed lists every field, and `metadata` is the place for anything else, so an unknown key is
// almost always a typo (`scor`, `sesion_id`) that would otherwise drop evidence silently.
export const sessionStartedEventSchema = z.strictObject({
  event_kind: z.literal("session_started"),
  ...eventFields,
});
export type SessionStartedEvent = z.output<typeof sessionStartedEventSchema>;

export const sessionFeedbackEventSchema = z.strictObject({
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
