import { USAGE_GROUPS, usageQuerySchema } from "../../contracts/index.js";
import { InvalidInputError } from "../../core/index.js";
import { usageReport } from "../../warden/index.js";
import { println } from "../command.js";
import { defineCommand, jsonOption } from "../command-spec.js";
import { withBudget } from "./budget.js";

export const usageCommand = defineCommand({
  name: "usage",
  summary: "model spend per day, model, agent, session or job, from the warden's records",
  description: `What the agents' model calls cost, from the warden's records in $IRONCLAW_HOME/host.db: one line per day (the
user's own days), model, agent profile, chat session, cron job or user, with the calls refused by a budget and
those whose cost is estimated (the provider reported no usage). Default: every user, every day, by day.`,
  options: [
    { name: "user", type: "string", valueName: "name", description: "only this user's calls" },
    { name: "since", type: "string", valueName: "YYYY-MM-DD", description: "from this day on" },
    { name: "until", type: "string", valueName: "YYYY-MM-DD", description: "up to this day" },
    // The API's own list of groupings: the flag accepts exactly what GET /api/usage does.
    { name: "by", type: "string", choices: USAGE_GROUPS, description: "one line per what (default: day)" },
    jsonOption("the report"),
  ],
  async run({ options }, io) {
    const query = usageQuerySchema.safeParse({
      ...(options.user === undefined ? {} : { user: options.user }),
      ...(options.since === undefined ? {} : { since: options.since }),
      ...(options.until === undefined ? {} : { until: options.until }),
      ...(options.by === undefined ? {} : { by: options.by }),
    });
    if (!query.success) {
      const issue = query.error.issues[0];
      throw new InvalidInputError(`--${String(issue?.path[0] ?? "by")}`, issue?.message ?? "is invalid");
    }
    return withBudget(io, ({ budget }) => {
      const report = usageReport(budget, query.data);
      if (options.json) {
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
          row.overruns
            ? `${row.overruns} past their reservation, $${row.over_reported_usd.toFixed(4)} more reported, not charged`
            : "",
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
});
