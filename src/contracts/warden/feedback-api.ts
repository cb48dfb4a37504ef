import { z } from "zod";

/** A thumbs up or down: the two ratings a person gives an answer (seed 004 session_feedback, by the warden). */
export const ANSWER_RATINGS = ["up", "down"] as const;
export type AnswerRating = (typeof ANSWER_RATINGS)[number];

/** The longest comment kept with a rating; more is refused rather than cut, so nothing said is lost silently. */
export const FEEDBACK_COMMENT_MAX = 2000;

/** POST /api/feedback: a rating of one answer (a conversation entry) of the caller's own conversation. */
export const answerFeedbackBodySchema = z.strictObject({
  session_id: z.string({ error: "must be a conversation id" }).min(1, "must be a conversation id"),
  /** The conversation entry rated, as GET /api/sessions/{id} lists it (seq); it must be an answer. */
  message_seq: z.number({ error: "must be a number" }).int("must be an integer").min(0, "must be at least 0"),
  rating: z.enum(ANSWER_RATINGS, { error: `must be one of ${ANSWER_RATINGS.join(", ")}` }),
  comment: z
    .string({ error: "must be a string" })
    .max(FEEDBACK_COMMENT_MAX, `must be at most ${FEEDBACK_COMMENT_MAX} characters`)
    .optional(),
});

/** What was recorded: the session_feedback event and the projected record the evolution pipeline reads. */
export const answerFeedbackResultSchema = z.strictObject({
  session_id: z.string(),
  message_seq: z.number().int(),
  rating: z.enum(ANSWER_RATINGS),
  status: z.enum(["success", "failure"]),
  score: z.number(),
  event_id: z.string(),
  record_id: z.string(),
  /** False when the same rating (and comment) of this answer was already recorded: it is kept once. */
  stored: z.boolean(),
});
