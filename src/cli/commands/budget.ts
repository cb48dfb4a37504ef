import { parseArgs } from "node:util";
import type { z } from "zod";
import { loadHostConfig } from "../../cells/index.js";
import { type BudgetSetBody, budgetSetBodySchema, budgetTargetSchema } from "../../contracts/index.js";
import { InvalidInputError, ironclawHome } from "../../core/index.js";
import { AuditStore } from "../../warden/audit-store.js";
import { alertViews, budgetOverview, clearBudget, setBudget } from "../../warden/budget-admin.js";
import { ModelBudget } from "../../warden/budget-guard.js";
import { openHostDb } from "../../warden/host-db.js";
import { DEFAULT_PRICES_AS_OF } from "../../warden/model-price-table.js";
import { formatUsd, usdToMicros } from "../../warden/price-book.js";
import { UserStore } from "../../warden/user-store.js";
import { type CliCommand, type CliIo, println, UsageError } from "../command.js";

const usage = `Usage: ironclaw budget set (--user <name> [--agent <profile> | --job <id>] | --host)
                           [--daily-usd <dollars>] [--monthly-usd <dollars>] [--timezone <zone>] [--json]
       ironclaw budget show [--user <name>] [--json]
       ironclaw budget clear (--user <name> [--agent <profile> | --job <id>] | --host) [--json]
       ironclaw budget alerts [--user <name>] [--json]
       ironclaw budget prices [--json]

Spend caps on the model calls of users' agents, enforced by the warden before a call reaches the provider.
  set      set a daily and/or monthly cap in US dollars (none removes one) on a user, one of their agent
           profiles, one of their cron jobs, or the whole host; --timezone sets when the user's days and
           months turn over (IANA name, like Europe/Berlin; default [budgets] timezone in ironclawd.toml)
  show     the caps with what the current day and month have spent and what calls in flight hold
  clear    remove a party's caps (its spend stays on record)
  alerts   the 50/80/100 % alerts and refusals so far
  prices   the model prices in force: ironclawd.toml's [pricing], then the table shipped with IronClaw
Changes take effect at the next model call; the warden may be running. Reads and writes $IRONCLAW_HOME/host.db.`;

const FLAG: Record<string, string> = {
  daily_usd: "--daily-usd",
  monthly_usd: "--monthly-usd",
  timezone: "--timezone",
  user: "--user",
  agent: "--agent",
  job: "--job",
  host: "--host",
};

export const budgetCommand: CliCommand = {
  name: "budget",
  summary: "set, show and clear spend caps on model calls (per user, agent, cron job, host)",
  usage,
  async run(argv, io) {
    const { values, positionals } = parsing(() =>
      parseArgs({
        args: argv,
        allowPositionals: true,
        options: {
          user: { type: "string" },
          agent: { type: "string" },
          job: { type: "string" },
          host: { type: "boolean" },
          "daily-usd": { type: "string" },
          "monthly-usd": { type: "string" },
          timezone: { type: "string" },
          json: { type: "boolean" },
        },
      }),
    );
    const [sub, ...extra] = positionals;
    if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}'`);
    const target = {
      ...(values.host ? { host: true } : {}),
      ...(values.user === undefined ? {} : { user: values.user }),
      ...(values.agent === undefined ? {} : { agent: values.agent }),
      ...(values.job === undefined ? {} : { job: values.job }),
    };
    const print = (json: unknown, text: () => string[]) => {
      if (values.json) println(io.stdout, JSON.stringify(json));
      else for (const line of text()) println(io.stdout, line);
    };
    switch (sub) {
      case "set": {
        const body = checked(budgetSetBodySchema, {
          ...target,
          ...dollars("daily_usd", values["daily-usd"]),
          ...dollars("monthly_usd", values["monthly-usd"]),
          ...(values.timezone === undefined ? {} : { timezone: values.timezone }),
        }) as BudgetSetBody;
        return withBudget(io, (deps) => {
          const view = setBudget(deps, body, "cli");
          print(view, () => [
            `${view.description}: daily ${cap(view.daily_usd)}, monthly ${cap(view.monthly_usd)}` +
              (body.timezone ? `; days and months in ${body.timezone}` : ""),
          ]);
          return 0;
        });
      }
      case "clear": {
        const parsed = checked(budgetTargetSchema, target);
        return withBudget(io, (deps) => {
          const result = clearBudget(deps, parsed, "cli");
          print(result, () => [`removed ${result.cleared} cap${result.cleared === 1 ? "" : "s"}`]);
          return 0;
        });
      }
      case "show":
        return withBudget(io, ({ budget }) => {
          const overview = budgetOverview(budget, {
            ...(values.user ? { user: values.user } : {}),
            withHost: true,
          });
          print(overview, () =>
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
      case "alerts":
        return withBudget(io, ({ budget }) => {
          const alerts = alertViews(
            budget.store.alerts({ ...(values.user ? { user: values.user } : {}), limit: 1000 }),
          );
          print(alerts, () =>
            alerts.length === 0 ? ["no budget alerts"] : alerts.map((a) => `${a.at}  ${a.message}`),
          );
          return 0;
        });
      case "prices":
        return withBudget(io, ({ budget }) => {
          const prices = budget.prices.list();
          print(prices, () => [
            `US dollars per million tokens (shipped table of ${DEFAULT_PRICES_AS_OF}; [pricing] in ironclawd.toml wins)`,
            ...prices.map(
              (p) =>
                `${`${p.provider} ${p.model}`.padEnd(44)} in ${p.price.input} out ${p.price.output}` +
                (p.price.cached_input === undefined ? "" : ` cached ${p.price.cached_input}`) +
                `  (${p.source})`,
            ),
          ]);
          return 0;
        });
      case undefined:
        throw new UsageError("missing subcommand: set, show, clear, alerts or prices");
      default:
        throw new UsageError(`unknown subcommand '${sub}'`);
    }
  },
};

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

/** `--daily-usd 2.5` → 2.5, `none` → null (remove the cap); anything else is left to the schema to name. */
function dollars(field: string, value: string | undefined): Record<string, unknown> {
  if (value === undefined) return {};
  if (value === "none") return { [field]: null };
  const number = value.trim() === "" ? Number.NaN : Number(value.replace(/^\$/, ""));
  return { [field]: Number.isFinite(number) ? number : value };
}

/** Validates flags with the API's own schema; a problem names the flag and the rule. */
function checked<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const key = String(issue?.path[0] ?? "");
  // A dollar flag that was not a number reaches the schema as the text typed; say what it should be.
  const given =
    typeof input === "object" && input !== null ? (input as Record<string, unknown>)[key] : undefined;
  const rule =
    key.endsWith("_usd") && typeof given === "string"
      ? "must be a number of US dollars, or none"
      : (issue?.message ?? "is invalid");
  throw new InvalidInputError(FLAG[key] ?? (key || "arguments"), rule);
}

function cap(usd: number | null): string {
  return usd === null ? "none" : formatUsd(usdToMicros(usd));
}

function parsing<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}
