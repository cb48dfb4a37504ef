import { z } from "zod";
import { agentName, cronJobId, ianaTimeZone } from "../cell/index.js";
import { aBoolean, aNumber, aString } from "../common.js";
import { userNameSchema } from "./api.js";

// Spend caps and usage (the warden's model proxy enforces them): the bodies and answers of /api/budgets and
// /api/usage, shared by the routes, the CLI and the UI.

/** A cap in US dollars; 0 stops every priced call. */
export const usdCapSchema = aNumber()
  .min(0, "must be at least 0 (US dollars)")
  .max(1_000_000, "must be at most 1000000 (US dollars)");

interface TargetFields {
  host?: boolean | undefined;
  user?: string | undefined;
  agent?: string | undefined;
  job?: string | undefined;
}

/** What is wrong with a target: exactly the host or a user, and under a user an agent or a job, not both. */
function targetProblems(t: TargetFields): Array<{ path: string; message: string }> {
  if (t.host === true)
    return t.user === undefined ? [] : [{ path: "user", message: "give host or user, not both" }];
  const problems: Array<{ path: string; message: string }> = [];
  if (t.user === undefined)
    problems.push({ path: "user", message: "is required (or host: true for the host-wide cap)" });
  if (t.agent !== undefined && t.job !== undefined)
    problems.push({ path: "job", message: "give agent or job, not both" });
  return problems;
}

const targetFields = {
  host: aBoolean().optional(),
  user: userNameSchema.optional(),
  agent: agentName.optional(),
  job: cronJobId.optional(),
};

/**
 * Whose cap: the whole host, a user, one of a user's agent profiles, or one of a user's cron jobs. Runs and orders
 * of command are parties of the same kind once they exist.
 */
export const budgetTargetSchema = z.strictObject(targetFields).superRefine((t, ctx) => {
  for (const p of targetProblems(t))
    ctx.addIssue({ code: "custom", path: [p.path], message: p.message, input: t });
});
export type BudgetTarget = z.output<typeof budgetTargetSchema>;

/** The query form of a target (`?user=alice&agent=assistant`, `?host=true`). */
export const budgetTargetQuerySchema = z
  .strictObject({ ...targetFields, host: z.enum(["true", "false"], "must be true or false").optional() })
  .transform(({ host, ...rest }): BudgetTarget => (host === "true" ? { ...rest, host: true } : rest))
  .superRefine((t, ctx) => {
    for (const p of targetProblems(t))
      ctx.addIssue({ code: "custom", path: [p.path], message: p.message, input: t });
  });

/** PUT /api/budgets: sets the named caps (null removes one) and, for a user, the time zone of their days. */
export const budgetSetBodySchema = z
  .strictObject({
    ...targetFields,
    daily_usd: usdCapSchema.nullable().optional(),
    monthly_usd: usdCapSchema.nullable().optional(),
    timezone: ianaTimeZone.optional(),
  })
  .superRefine((b, ctx) => {
    const issue = (path: string, message: string) =>
      ctx.addIssue({ code: "custom", path: [path], message, input: b });
    if (b.daily_usd === undefined && b.monthly_usd === undefined && b.timezone === undefined)
      issue("daily_usd", "give daily_usd, monthly_usd or timezone");
    if (b.timezone !== undefined && (b.user === undefined || b.agent !== undefined || b.job !== undefined))
      issue("timezone", "is a user's setting: give it with user alone");
    for (const p of targetProblems(b)) issue(p.path, p.message);
  });
export type BudgetSetBody = z.output<typeof budgetSetBodySchema>;

export const BUDGET_PERIODS = ["day", "month", "total"] as const;

/** A party's caps as set. */
export const budgetSchema = z.object({
  party: aString(),
  kind: aString(),
  user: aString().nullable(),
  name: aString().nullable(),
  description: aString(),
  daily_usd: aNumber().nullable(),
  monthly_usd: aNumber().nullable(),
  total_usd: aNumber().nullable(),
});

/** One cap against its current window: what is spent, what calls in flight hold, when it renews. */
export const budgetStatusSchema = z.object({
  party: aString(),
  description: aString(),
  period: z.enum(BUDGET_PERIODS),
  window: aString(),
  time_zone: aString(),
  limit_usd: aNumber(),
  spent_usd: aNumber(),
  reserved_usd: aNumber(),
  percent: aNumber(),
});

export const budgetOverviewSchema = z.object({
  time_zone: aString(),
  budgets: z.array(budgetSchema),
  status: z.array(budgetStatusSchema),
});

export const BUDGET_ALERT_LEVELS = ["50", "80", "100", "refused"] as const;

/** A threshold crossed (or a call refused), once per party and window; the UI polls for new ones. */
export const budgetAlertSchema = z.object({
  id: aNumber(),
  user: aString().nullable(),
  party: aString(),
  window: aString(),
  level: aString(),
  limit_usd: aNumber(),
  spent_usd: aNumber(),
  message: aString(),
  at: aString(),
});

export const budgetAlertQuerySchema = z.strictObject({
  user: userNameSchema.optional(),
  after: z.coerce
    .number({ error: "must be an alert id" })
    .int("must be an integer")
    .min(0, "must be at least 0")
    .optional(),
  limit: z.coerce
    .number({ error: "must be a number" })
    .int("must be an integer")
    .min(1, "must be at least 1")
    .max(1000, "must be at most 1000")
    .optional(),
});

export const USAGE_GROUPS = ["day", "model", "agent", "session", "job", "user"] as const;
export type UsageGroup = (typeof USAGE_GROUPS)[number];

const isoDay = aString().regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date like 2025-03-31");

/** GET /api/usage: spend grouped by day (the user's), model, agent, session, job or user. */
export const usageQuerySchema = z.strictObject({
  user: userNameSchema.optional(),
  since: isoDay.optional(),
  until: isoDay.optional(),
  by: z.enum(USAGE_GROUPS, `must be one of ${USAGE_GROUPS.join(", ")}`).default("day"),
});
export type UsageQuery = z.output<typeof usageQuerySchema>;

export const usageRowSchema = z.object({
  key: aString(),
  calls: aNumber(),
  refused: aNumber(),
  estimated: aNumber(),
  unpriced: aNumber(),
  input_tokens: aNumber(),
  /** The part of input_tokens served from the provider's prompt cache (billed at the cached-input price). */
  cached_input_tokens: aNumber(),
  output_tokens: aNumber(),
  cost_usd: aNumber(),
  /** Calls charged at most their reservation although they went past it: cut by the warden, or over-reported. */
  overruns: aNumber(),
  /** What providers reported beyond those charges: recorded and audited, not counted in cost_usd. */
  over_reported_usd: aNumber(),
});

export const usageReportSchema = z.object({
  by: z.enum(USAGE_GROUPS),
  rows: z.array(usageRowSchema),
  total: usageRowSchema,
});
