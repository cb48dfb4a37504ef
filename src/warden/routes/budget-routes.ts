import { z } from "zod";
import {
  budgetAlertQuerySchema,
  budgetAlertSchema,
  budgetOverviewSchema,
  budgetSchema,
  budgetSetBodySchema,
  budgetTargetQuerySchema,
  userNameSchema,
} from "../../contracts/index.js";
import { alertViews, budgetOverview, clearBudget, setBudget } from "../budget/index.js";
import { defineRoute } from "../http/api-route.js";
import type { Auth } from "../http/auth.js";
import type { WardenContext } from "../warden-context.js";

const scopeQuery = z.strictObject({ user: userNameSchema.optional() });

/**
 * Spend caps: an admin sets and clears them; a user sees their own caps, spend and alerts. Nothing here is
 * reachable from a cell (cells have no network), and a cell's protocol has no message that touches a budget.
 */
export function budgetRoutes(deps: Pick<WardenContext, "budget" | "users" | "audit">) {
  // A user is shown their own; an admin whoever they name, or everyone.
  const whose = (auth: Auth, user: string | undefined) => (auth.admin ? user : auth.userId);
  return [
    defineRoute({
      method: "GET",
      url: "/api/budgets",
      summary: "Caps and the spend of their current day and month: your own, or anyone's for an admin",
      tag: "budgets",
      access: "user",
      query: scopeQuery,
      response: budgetOverviewSchema,
      handler: async ({ auth, query }) => {
        const user = whose(auth, query.user);
        return budgetOverview(deps.budget, { ...(user ? { user } : {}), withHost: auth.admin });
      },
    }),
    defineRoute({
      method: "PUT",
      url: "/api/budgets",
      summary:
        "Set daily and monthly caps (USD; null removes one) of the host, a user, an agent or a job (admin)",
      tag: "budgets",
      access: "admin",
      body: budgetSetBodySchema,
      response: budgetSchema,
      handler: async ({ auth, body }) => setBudget(deps, body, `user:${auth.userId}`),
    }),
    defineRoute({
      method: "DELETE",
      url: "/api/budgets",
      summary: "Remove the caps of the host, a user, an agent or a job; their spend stays on record (admin)",
      tag: "budgets",
      access: "admin",
      query: budgetTargetQuerySchema,
      response: z.object({ cleared: z.number() }),
      handler: async ({ auth, query }) => clearBudget(deps, query, `user:${auth.userId}`),
    }),
    defineRoute({
      method: "GET",
      url: "/api/budgets/alerts",
      summary:
        "Budget alerts (50/80/100 %, refusals) after an id, oldest first; the UI polls with the last it saw",
      tag: "budgets",
      access: "user",
      query: budgetAlertQuerySchema,
      response: z.array(budgetAlertSchema),
      handler: async ({ auth, query }) => {
        const user = whose(auth, query.user);
        return alertViews(
          deps.budget.store.alerts({
            ...(user ? { user } : {}),
            ...(query.after === undefined ? {} : { after: query.after }),
            ...(query.limit === undefined ? {} : { limit: query.limit }),
          }),
        );
      },
    }),
  ];
}
