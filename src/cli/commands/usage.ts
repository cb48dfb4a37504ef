import { parseArgs } from "node:util";
import { usageQuerySchema } from "../../contracts/index.js";
import { InvalidInputError } from "../../core/index.js";
import { usageReport } from "../../warden/budget-admin.js";
import { type CliCommand, println, UsageError } from "../command.js";
import { withBudget } from "./budget.js";

const usage = `Usage: ironclaw usage [--user <name>] [--since <YYYY-MM-DD>] [--until <YYYY-MM-DD>]
                      [--by day|model|agent|session|job|user] [--json]

What the agents' model calls cost, from the warden's records in $IRONCLAW_HOME/host.db: one line per day (the
user's own days), model, agent profile, chat session, cron job or user, with the calls refused by a budget and
those whose cost is estimated (the provider reported no usage). Default: every user, every day, by day.`;

export const usageCommand: CliCommand = {
  name: "usage",
  summary: "model spend per day, model, agent, session or job, from the warden's records",
  usage,
  async run(argv, io) {
    let parsed: ReturnType<typeof parse>;
    try {
      parsed = parse(argv);
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    const { values, positionals } = parsed;
    if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'`);
    const query = usageQuerySchema.safeParse({
      ...(values.user === undefined ? {} : { user: values.user }),
      ...(values.since === undefined ? {} : { since: values.since }),
      ...(values.until === undefined ? {} : { until: values.until }),
      ...(values.by === undefined ? {} : { by: values.by }),
    });
    if (!query.success) {
      const issue = query.error.issues[0];
      throw new InvalidInputError(`--${String(issue?.path[0] ?? "by")}`, issue?.message ?? "is invalid");
    }
    return withBudget(io, ({ budget }) => {
      const report = usageReport(budget, query.data);
      if (values.json) {
        println(io.stdout, JSON.stringify(report));
        return 0;
      }
      if (report.rows.length === 0) {
        println(io.stdout, "no model calls recorded");
        return 0;
      }
      println(
        io.stdout,
        `${report.by.padEnd(40)} ${"calls".padStart(6)} ${"refused".padStart(8)} ${"tokens in".padStart(11)} ${"tokens out".padStart(11)} ${"USD".padStart(10)}`,
      );
      for (const row of [...report.rows, report.total]) {
        const notes = [
          row.estimated ? `${row.estimated} estimated` : "",
          row.unpriced ? `${row.unpriced} unpriced` : "",
        ]
          .filter(Boolean)
          .join(", ");
        println(
          io.stdout,
          `${row.key.padEnd(40)} ${String(row.calls).padStart(6)} ${String(row.refused).padStart(8)} ` +
            `${String(row.input_tokens).padStart(11)} ${String(row.output_tokens).padStart(11)} ` +
            `${row.cost_usd.toFixed(4).padStart(10)}${notes ? `  (${notes})` : ""}`,
        );
      }
      return 0;
    });
  },
};

function parse(argv: string[]) {
  return parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      user: { type: "string" },
      since: { type: "string" },
      until: { type: "string" },
      by: { type: "string" },
      json: { type: "boolean" },
    },
  });
}
