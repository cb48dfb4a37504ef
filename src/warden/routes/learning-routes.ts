import { z } from "zod";
import {
  learningTickDataSchema,
  pathSafeId,
  policyQuerySchema,
  policyStateSchema,
  policyVersionBodySchema,
  policyViewSchema,
  runFeedbackBodySchema,
} from "../../contracts/index.js";
import { defineRoute } from "../http/api-route.js";
import { type CommandDeps, commandAccess } from "./command-access.js";

const runParams = z.object({ run_id: pathSafeId });
const feedbackData = z.object({ run_id: pathSafeId, event_id: z.string(), rating: z.enum(["down", "up"]) });

/**
 * The learning service's HTTP surface (seed 000 §3.10): the routing policy is the host's, so anyone signed in
 * may read it and only an admin ticks, pins, unpins or rolls it back; every change is a POLICY_UPDATED event
 * naming who made it. A run's owner rates its result, the correction signal learning counts.
 */
export function learningRoutes(ctx: CommandDeps) {
  const access = commandAccess(ctx);
  const learning = () => access.service().learning;
  const versionRoute = (action: "pin" | "rollback", summary: string) =>
    defineRoute({
      method: "POST",
      url: `/api/learn/policy/${action}`,
      summary,
      tag: "learning",
      access: "admin",
      body: policyVersionBodySchema,
      response: policyViewSchema,
      handler: ({ auth, body }) => learning()[action](body.version, auth.userId),
    });
  return [
    defineRoute({
      method: "POST",
      url: "/api/learn/tick",
      summary:
        "Measure outcomes by profile and task type; write a new policy version when the routing changed",
      tag: "learning",
      access: "admin",
      response: learningTickDataSchema,
      handler: () => learning().tick(),
    }),
    defineRoute({
      method: "GET",
      url: "/api/learn/policy",
      summary: "The active routing policy, or ?version= one, with its diff against the version before it",
      tag: "learning",
      access: "user",
      query: policyQuerySchema,
      response: policyViewSchema,
      handler: ({ query }) => learning().policy(query.version),
    }),
    defineRoute({
      method: "GET",
      url: "/api/learn/policy/versions",
      summary: "Every routing policy version, which one is active, and whether it is pinned",
      tag: "learning",
      access: "user",
      response: policyStateSchema,
      handler: () => learning().versions(),
    }),
    versionRoute("pin", "Hold a policy version active: learning ticks measure but do not change it"),
    versionRoute("rollback", "Make an earlier policy version active again (a pin stays, on that version)"),
    defineRoute({
      method: "POST",
      url: "/api/learn/policy/unpin",
      summary: "Let learning ticks change the active policy again",
      tag: "learning",
      access: "admin",
      response: policyViewSchema,
      handler: ({ auth }) => learning().unpin(auth.userId),
    }),
    defineRoute({
      method: "POST",
      url: "/api/runs/:run_id/feedback",
      summary:
        "Rate a run's result (thumbs down or up, with a note); a thumbs-down is a correction learning counts",
      tag: "learning",
      access: "user",
      params: runParams,
      body: runFeedbackBodySchema,
      response: feedbackData,
      status: 201,
      async handler({ auth, params, body }) {
        await access.run(auth, params.run_id);
        const { event_id } = await learning().recordFeedback(params.run_id, body, auth.userId);
        return { run_id: params.run_id, event_id, rating: body.rating };
      },
    }),
  ];
}
