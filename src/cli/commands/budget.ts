import type { z } from "zod";
import { loadHostConfig } from "../../cells/index.js";
import { type BudgetSetBody, budgetSetBodySchema, budgetTargetSchema } from "../../contracts/index.js";
import { InvalidInputError, ironclawHome } from "../../core/index.js";
import {
  AuditStore,
  alertViews,
  budgetOverview,
  clearBudget,
  DEFAULT_PRICES_AS_OF,
  formatUsd,
  ModelBudget,
  openHostDb,
  setBudget,
  UserStore,
  usdToMicros,
} from "../../warden/index.js";
import { type CliIo, println } from "../command.js";
import { defineCommand, defineGroup, jsonOption } from "../command-spec.js";

const JSON_OUTPUT = jsonOption("the result");
const USER = {
  name: "user",
  type: "string",
  valueName: "name",
  description: "a user of the warden",
} as const;
/** Whose caps: a user, one of their agent profiles or cron jobs, or the whole host. */
const PARTY = [
  USER,
  { name: "agent", type: "string", valueName: "profile", description: "one of the user's agent profiles" },
  { name: "job", type: "string", valueName: "id", description: "one of the user's cron jobs" },
  { name: "host", type: "boolean", description: "the whole host, instead of a user" },
] as const;

// Dollar amounts stay text here: `none` removes a cap, and the API's schema names what a bad amount breaks.
const set = defineCommand({
  name: "set",
  summary: "set a daily and/or monthly cap in US dollars (none removes one)",
  description:
    "Set a daily and/or monthly cap in US dollars (none removes one) on a user, one of their agent profiles,\n" +
    "one of their cron jobs, or the whole host. Changes take effect at the next model call; the warden may be\n" +
    "running. Reads and writes $IRONCLAW_HOME/host.db.",
  options: [
    ...PARTY,
    { name: "daily-usd", type: "string", valueName: "dollars", description: "the daily cap, or none" },
    { name: "monthly-usd", type: "string", valueName: "dollars", description: "the monthly cap, or none" },
    {
      name: "timezone",
      type: "string",
      valueName: "zone",
      description:
        "when the user's days and months turn over (IANA name, like Europe/Berlin; default [budgets] timezone in ironclawd.toml)",
    },
    JSON_OUTPUT,
  ],
  async run({ options }, io) {
    const body = checked(budgetSetBodySchema, {
      ...partyOf(options),
      ...dollars("daily_usd", options["daily-usd"]),
      ...dollars("monthly_usd", options["monthly-usd"]),
      ...(options.timezone === undefined ? {} : { timezone: options.timezone }),
    }) as BudgetSetBody;
    return withBudget(io, (deps) => {
      const view = setBudget(deps, body, "cli");
      print(io, options.json, view, () => [
        `${view.description}: daily ${cap(view.daily_usd)}, monthly ${cap(view.monthly_usd)}` +
          (body.timezone ? `; days and months in ${body.timezone}` : ""),
      ]);
      return 0;
    });
  },
});

const show = defineCommand({
  name: "show",
  summary: "the caps with what the current day and month have spent and what calls in flight hold",
  options: [{ ...USER, description: "only this user's caps (and the host's)" }, JSON_OUTPUT],
  async run({ options }, io) {
    return withBudget(io, ({ budget }) => {
      const overview = budgetOverview(budget, {
        ...(options.user ? { user: options.user } : {}),
        withHost: true,
      });
      print(io, options.json, overview, () =>
        overview.status.length === 0
          ? ["no budgets: model calls are not capped (usage is still recorded: ironclaw usage)"]
          : overview.status.map(
              (s) =>
                `${s.description.padEnd(36)} ${s.period.padEnd(5)} ${s.window.padEnd(16)} ` +
                `$${s.spent_usd.toFixed(4)} of $${s.limit_usd.toFixed(2)} (${s.percent}%)` +
                (s.reserved_usd > 0 ? `, $${s.reserved_usd.toFixed(4)} held` : "") +
                `  ${s.time_zone}`,
            ),
      );
      return 0;
    });
  },
});

const clear = defineCommand({
  name: "clear",
  summary: "remove a party's caps (its spend stays on record)",
  options: [...PARTY, JSON_OUTPUT],
  async run({ options }, io) {
    const parsed = checked(budgetTargetSchema, partyOf(options));
    return withBudget(io, (deps) => {
      const result = clearBudget(deps, parsed, "cli");
      print(io, options.json, result, () => [
        `removed ${result.cleared} cap${result.cleared === 1 ? "" : "s"}`,
      ]);
      return 0;
    });
  },
});

const alerts = defineCommand({
  name: "alerts",
  summary: "the 50/80/100 % alerts and refusals so far",
  options: [{ ...USER, description: "only this user's alerts" }, JSON_OUTPUT],
  async run({ options }, io) {
    return withBudget(io, ({ budget }) => {
      const views = alertViews(
        budget.store.alerts({ ...(options.user ? { user: options.user } : {}), limit: 1000 }),
      );
      print(io, options.json, views, () =>
        views.length === 0 ? ["no budget alerts"] : views.map((a) => `${a.at}  ${a.message}`),
      );
      return 0;
    });
  },
});

const prices = defineCommand({
  name: "prices",
  summary: "the model prices in force: ironclawd.toml's [pricing], then the table shipped with IronClaw",
  options: [JSON_OUTPUT],
  async run({ options }, io) {
    return withBudget(io, ({ budget }) => {
      const list = budget.prices.list();
      print(io, options.json, list, () => [
        `US dollars per million tokens (shipped table of ${DEFAULT_PRICES_AS_OF}; [pricing] in ironclawd.toml wins)`,
        ...list.map(
          (p) =>
            `${`${p.provider} ${p.model}`.padEnd(44)} in ${p.price.input} out ${p.price.output}` +
            (p.price.cached_input === undefined ? "" : ` cached ${p.price.cached_input}`) +
            `  (${p.source})`,
        ),
      ]);
      return 0;
    });
  },
});

export const budgetCommand = defineGroup({
  name: "budget",
  summary: "set, show and clear spend caps on model calls (per user, agent, cron job, host)",
  description:
    "Spend caps on the model calls of users' agents, enforced by the warden before a call reaches the provider.\n" +
    "Changes take effect at the next model call; the warden may be running. Reads and writes $IRONCLAW_HOME/host.db.",
  subcommands: [set, show, clear, alerts, prices],
});

/** The warden's budget over host.db, with the config's prices and rules; closed after `work`. */
export function withBudget<T>(
  io: CliIo,
  work: (deps: { budget: ModelBudget; users: UserStore; audit: AuditStore }) => T,
): T {
  const home = ironclawHome(io.env);
  const config = loadHostConfig(home);
  const db = openHostDb(home);
  try {
    return work({
      budget: new ModelBudget({ db, config }),
      users: new UserStore(db),
      audit: new AuditStore(db),
    });
  } finally {
    db.close();
  }
}

function partyOf(options: { host: boolean; user?: string; agent?: string; job?: string }) {
  return {
    ...(options.host ? { host: true } : {}),
    ...(options.user === undefined ? {} : { user: options.user }),
    ...(options.agent === undefined ? {} : { agent: options.agent }),
    ...(options.job === undefined ? {} : { job: options.job }),
  };
}

function print(io: CliIo, json: boolean, value: unknown, text: () => string[]): void {
  if (json) println(io.stdout, JSON.stringify(value));
  else for (const line of text()) println(io.stdout, line);
}

/** `--daily-usd 2.5` → 2.5, `none` → null (remove the cap); anything else is left to the schema to name. */
function dollars(field: string, value: string | undefined): Record<string, unknown> {
  if (value === undefined) return {};
  if (value === "none") return { [field]: null };
  const number = value.trim() === "" ? Number.NaN : Number(value.replace(/^\$/, ""));
  return { [field]: Number.isFinite(number) ? number : value };
}

const FLAG: Record<string, string> = {
  daily_usd: "--daily-usd",
  monthly_usd: "--monthly-usd",
  timezone: "--timezone",
  user: "--user",
  agent: "--agent",
  job: "--job",
  host: "--host",
};

/** Validates flags with the API's own schema; a problem names the flag and the rule. */
function checked<S extends z.ZodType>(schema: S, input: Record<string, unknown>): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const key = String(issue?.path[0] ?? "");
  // A dollar flag that was not a number reaches the schema as the text typed; say what it should be.
  const rule =
    key.endsWith("_usd") && typeof input[key] === "string"
      ? "must be a number of US dollars, or none"
      : (issue?.message ?? "is invalid");
  throw new InvalidInputError(FLAG[key] ?? (key || "arguments"), rule);
}

function cap(usd: number | null): string {
  return usd === null ? "none" : formatUsd(usdToMicros(usd));
}
