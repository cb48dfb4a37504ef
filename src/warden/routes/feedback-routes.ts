import { answerFeedbackBodySchema, answerFeedbackResultSchema } from "../../contracts/index.js";
import { defineRoute } from "../http/api-route.js";
import type { WardenContext } from "../warden-context.js";

/**
 * A thumbs up or down, with an optional comment, on an answer of one of the caller's own conversations: it becomes
 * a session_feedback in the evolution state (up: success 1, down: failure 0) and its projected record. The same
 * rating sent again is recorded once.
 */
export function feedbackRoutes(ctx: Pick<WardenContext, "chatEvolution">) {
  return [
    defineRoute({
      method: "POST",
      url: "/api/feedback",
      summary:
        "Rate an answer of your conversation (up or down, optional comment): recorded as session_feedback for evolution",
      tag: "evolution",
      access: "user",
      body: answerFeedbackBodySchema,
      response: answerFeedbackResultSchema,
      handler: async ({ auth, body }) => ctx.chatEvolution.rate(auth.userId, { ...body, via: "api" }),
    }),
  ];
}
