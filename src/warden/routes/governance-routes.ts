import {
  governancePromoteBodySchema,
  governanceReportSchema,
  governanceReviewBodySchema,
  governanceRollbackBodySchema,
  promotionResultSchema,
  proposalDetailSchema,
  proposalParamsSchema,
  reviewResultSchema,
  rollbackResultSchema,
} from "../../contracts/index.js";
import { WardenGovernance } from "../evolution/index.js";
import { defineRoute } from "../http/api-route.js";
import type { WardenContext } from "../warden-context.js";
import { readBrainFile } from "./brain-access.js";
import { editBrainAsPerson } from "./person-edit.js";

/**
 * Seed 004 governance for the warden's admins: what evolution proposes reaches an agent only through them. A
 * promotion writes the brain of the user whose sessions are the proposal's evidence, as a person's edit in the
 * memory inspector is written (soul guard, audit, brain history); the admin is recorded as the operator.
 */
export function governanceRoutes(
  ctx: Pick<WardenContext, "evolution" | "soul" | "cells" | "audit" | "chat">,
) {
  const governance = new WardenGovernance({
    evolution: ctx.evolution,
    editor: {
      read: (userId, path) => readBrainFile(ctx, userId, path),
      edit: (userId, edit) => editBrainAsPerson(ctx, userId, edit),
    },
  });
  return [
    defineRoute({
      method: "GET",
      url: "/api/evolution/governance",
      summary: "The governance report: every proposal with its readiness, risk, review state and next action",
      tag: "evolution",
      access: "admin",
      response: governanceReportSchema,
      handler: async () => governance.report(),
    }),
    defineRoute({
      method: "GET",
      url: "/api/evolution/proposals/:id",
      summary:
        "One proposal: its change, gate checks, review state, the user whose brain it changes, and each piece of evidence from projected record to raw envelope",
      tag: "evolution",
      access: "admin",
      params: proposalParamsSchema,
      response: proposalDetailSchema,
      handler: async ({ params }) => governance.proposal(params.id),
    }),
    defineRoute({
      method: "POST",
      url: "/api/evolution/review",
      summary: "Approve or reject a proposal; recorded in the review queue with the admin as operator",
      tag: "evolution",
      access: "admin",
      body: governanceReviewBodySchema,
      response: reviewResultSchema,
      async handler({ auth, body }) {
        const entry = await governance.review(
          body.proposal_id,
          body.decision,
          auth.userId,
          body.reason ?? null,
        );
        return { proposal_id: entry.proposal_id, status: entry.status, history: entry.history };
      },
    }),
    defineRoute({
      method: "POST",
      url: "/api/evolution/promote",
      summary:
        "Write approved proposals into their users' brains (or, with dry_run, only show each file's text before and after)",
      tag: "evolution",
      access: "admin",
      body: governancePromoteBodySchema,
      response: promotionResultSchema,
      handler: async ({ auth, body }) =>
        governance.promote({
          dryRun: body.dry_run ?? false,
          operator: auth.userId,
          ...(body.proposal_ids ? { ids: body.proposal_ids } : {}),
        }),
    }),
    defineRoute({
      method: "POST",
      url: "/api/evolution/rollback",
      summary: "Restore the file a promoted proposal changed, while it still holds what the promotion wrote",
      tag: "evolution",
      access: "admin",
      body: governanceRollbackBodySchema,
      response: rollbackResultSchema,
      handler: async ({ auth, body }) =>
        governance.rollback(body.proposal_id, auth.userId, body.reason ?? null),
    }),
  ];
}
