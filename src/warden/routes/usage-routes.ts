import { usageQuerySchema, usageReportSchema } from "../../contracts/index.js";
import { usageReport } from "../budget/index.js";
import { defineRoute } from "../http/api-route.js";
import type { WardenContext } from "../warden-context.js";

/** What the model calls cost: a user's own, or anyone's (or everyone's) for an admin. */
export function usageRoutes(ctx: Pick<WardenContext, "budget">) {
  return [
    defineRoute({
      method: "GET",
      url: "/api/usage",
      summary:
        "Model spend grouped by day, model, agent, session, job or user, with refused and estimated calls",
      tag: "budgets",
      access: "user",
      query: usageQuerySchema,
      response: usageReportSchema,
      handler: async ({ auth, query }) => {
        const { user, ...rest } = query;
        const whose = auth.admin ? user : auth.userId;
        return usageReport(ctx.budget, whose ? { ...rest, user: whose } : rest);
      },
    }),
  ];
}
