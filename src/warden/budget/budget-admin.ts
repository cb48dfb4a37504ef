import type { z } from "zod";
import type {
  BudgetSetBody,
  BudgetTarget,
  budgetAlertSchema,
  budgetOverviewSchema,
  budgetSchema,
  budgetStatusSchema,
  UsageQuery,
  usageReportSchema,
} from "../../contracts/index.js";
import { NotFoundError } from "../../core/index.js";
import type { AuditStore } from "../audit-store.js";
import type { UserStore } from "../user-store.js";
import type { ModelBudget } from "./budget-guard.js";
import { describeParty, type Party, type Period, partyKey } from "./budget-party.js";
import type { BudgetAlert, Cap } from "./budget-store.js";
import { windowKey } from "./budget-windows.js";
import { microsToUsd, usdToMicros } from "./price-book.js";
import type { UsageTotals } from "./usage-store.js";

// What `ironclaw budget|usage` and /api/budgets, /api/usage do, once: set and clear caps (audited), show them
// against their current windows, list alerts, report usage. The CLI and the routes only parse and print.

type BudgetView = z.output<typeof budgetSchema>;
type StatusView = z.output<typeof budgetStatusSchema>;

export interface BudgetAdminDeps {
  budget: ModelBudget;
  users: Pick<UserStore, "get">;
  audit: AuditStore;
}

export function partyOf(target: BudgetTarget): Party {
  if (target.host === true || target.user === undefined) return { kind: "host" };
  if (target.agent !== undefined) return { kind: "agent", user: target.user, name: target.agent };
  if (target.job !== undefined) return { kind: "job", user: target.user, name: target.job };
  return { kind: "user", user: target.user };
}

/** Sets the caps a body names (null removes one) and a user's time zone; answers the party's caps as they are. */
export function setBudget(deps: BudgetAdminDeps, body: BudgetSetBody, actor: string): BudgetView {
  const party = partyOf(body);
  if (party.user !== undefined && !deps.users.get(party.user)) throw new NotFoundError("user", party.user);
  const { store } = deps.budget;
  store.db.transaction(() => {
    if (body.daily_usd !== undefined)
      store.setCap(party, "day", body.daily_usd === null ? null : usdToMicros(body.daily_usd), actor);
    if (body.monthly_usd !== undefined)
      store.setCap(party, "month", body.monthly_usd === null ? null : usdToMicros(body.monthly_usd), actor);
    if (body.timezone !== undefined && party.user !== undefined) store.setTimeZone(party.user, body.timezone);
  })();
  deps.audit.record({
    ...(party.user ? { userId: party.user } : {}),
    actor,
    action: "budget.set",
    detail: {
      party: partyKey(party),
      ...(body.daily_usd === undefined ? {} : { daily_usd: body.daily_usd }),
      ...(body.monthly_usd === undefined ? {} : { monthly_usd: body.monthly_usd }),
      ...(body.timezone === undefined ? {} : { timezone: body.timezone }),
    },
  });
  const key = partyKey(party);
  return viewsOf(store.capsFor([key]))[0] ?? emptyView(party);
}

/** Removes a party's caps; how many there were. Spend already recorded stays. */
export function clearBudget(deps: BudgetAdminDeps, target: BudgetTarget, actor: string): { cleared: number } {
  const party = partyOf(target);
  const cleared = deps.budget.store.clear(party);
  deps.audit.record({
    ...(party.user ? { userId: party.user } : {}),
    actor,
    action: "budget.cleared",
    detail: { party: partyKey(party), caps: cleared },
  });
  return { cleared };
}

/** A user's caps (or every cap, for an admin asking for no one in particular) against their current windows. */
export function budgetOverview(
  budget: ModelBudget,
  scope: { user?: string; withHost: boolean },
  now = Date.now(),
): z.output<typeof budgetOverviewSchema> {
  const caps = budget.store.list({ ...(scope.user ? { user: scope.user } : {}), withHost: scope.withHost });
  return {
    time_zone: budget.timeZoneOf(scope.user),
    budgets: viewsOf(caps),
    status: caps.map((cap) => statusOf(budget, cap, now)),
  };
}

export function alertViews(alerts: readonly BudgetAlert[]): Array<z.output<typeof budgetAlertSchema>> {
  return alerts.map((a) => ({
    id: a.id,
    user: a.userId,
    party: a.party,
    window: a.periodKey,
    level: a.level,
    limit_usd: microsToUsd(a.limitMicros),
    spent_usd: microsToUsd(a.spentMicros),
    message: a.message,
    at: a.at,
  }));
}

/** Spend grouped as asked; days are the users' own (each call is filed under its user's local day). */
export function usageReport(budget: ModelBudget, query: UsageQuery): z.output<typeof usageReportSchema> {
  const { rows, total } = budget.usage.report(query.by, {
    ...(query.user ? { user: query.user } : {}),
    ...(query.since ? { since: query.since } : {}),
    ...(query.until ? { until: query.until } : {}),
  });
  const view = (t: UsageTotals) => ({
    key: t.key,
    calls: t.calls,
    refused: t.refused,
    estimated: t.estimated,
    unpriced: t.unpriced,
    input_tokens: t.inputTokens,
    cached_input_tokens: t.cachedInputTokens,
    output_tokens: t.outputTokens,
    cost_usd: microsToUsd(t.costMicros),
    overruns: t.overruns,
    over_reported_usd: microsToUsd(t.overReportedMicros),
  });
  return { by: query.by, rows: rows.map(view), total: view(total) };
}

function statusOf(budget: ModelBudget, cap: Cap, now: number): StatusView {
  const timeZone =
    cap.party.kind === "host" ? budget.timeZoneOf(undefined) : budget.timeZoneOf(cap.party.user);
  const window = windowKey(cap.period, now, timeZone);
  const spend = budget.store.spend(cap.key, window);
  return {
    party: cap.key,
    description: describeParty(cap.party),
    period: cap.period,
    window,
    time_zone: timeZone,
    limit_usd: microsToUsd(cap.limitMicros),
    spent_usd: microsToUsd(spend.spent),
    reserved_usd: microsToUsd(spend.reserved),
    percent: cap.limitMicros === 0 ? 100 : Math.round((spend.spent / cap.limitMicros) * 1000) / 10,
  };
}

function viewsOf(caps: readonly Cap[]): BudgetView[] {
  const views = new Map<string, BudgetView>();
  for (const cap of caps) {
    const view = views.get(cap.key) ?? emptyView(cap.party);
    const usd = microsToUsd(cap.limitMicros);
    const field: Record<Period, "daily_usd" | "monthly_usd" | "total_usd"> = {
      day: "daily_usd",
      month: "monthly_usd",
      total: "total_usd",
    };
    view[field[cap.period]] = usd;
    views.set(cap.key, view);
  }
  return [...views.values()];
}

function emptyView(party: Party): BudgetView {
  return {
    party: partyKey(party),
    kind: party.kind,
    user: party.user ?? null,
    name: party.name ?? null,
    description: describeParty(party),
    daily_usd: null,
    monthly_usd: null,
    total_usd: null,
  };
}
