import { parseArgs } from "node:util";
import {
  AgentRuntime,
  createRuntimeScheduler,
  JobStore,
  loadJobsFile,
  nextRunAfter,
  openAgentDatabase,
} from "../../agent/index.js";
import { BRAIN_PATHS, BrainLayout } from "../../memory/index.js";
import { type CliCommand, println, UsageError } from "../command.js";

const usage = `Usage: ironclaw cron list --brain <dir> [--json]
       ironclaw cron run --brain <dir> <job-id> [--prompt <text>] [--workspace <dir>]

list   the jobs of cron/jobs.toml with their state from the brain database: next_run, last_run, status,
       last_result_ref, last_error. A job the scheduler has not seen yet shows its computed next run.
run    runs one job now as a fresh session, appends the result to today's log and prints one JSON object:
       job_id, run_id, session_id, status, result_ref, text, error. Exit code 0 when it succeeded.`;

export const cronCommand: CliCommand = {
  name: "cron",
  summary: "list a brain's scheduled jobs and their state, or run one now",
  usage,
  async run(argv, io) {
    const { values, positionals } = parseArgs({
      args: argv,
      options: {
        brain: { type: "string" },
        json: { type: "boolean" },
        prompt: { type: "string" },
        workspace: { type: "string" },
      },
      allowPositionals: true,
    });
    const [mode, jobId] = positionals;
    if (mode !== "list" && mode !== "run") throw new UsageError("expected list or run");
    if (!values.brain) throw new UsageError("missing --brain <dir>");
    const brain = BrainLayout.open(values.brain);

    if (mode === "list") {
      const jobs = loadJobsFile(brain.resolve(BRAIN_PATHS.cronJobs)).jobs;
      const db = openAgentDatabase(brain.databaseFile);
      try {
        const store = new JobStore(db);
        const now = new Date();
        const rows = jobs.map((job) => {
          const state = store.get(job.id);
          const next = job.enabled ? nextRunAfter(job, now)?.toISOString() : undefined;
          return {
            id: job.id,
            schedule: job.schedule,
            timezone: job.timezone,
            agent: job.agent ?? null,
            enabled: job.enabled,
            next_run: job.enabled ? (state?.nextRun ?? next ?? null) : null,
            last_run: state?.lastRun ?? null,
            status: state?.status ?? (job.enabled ? "scheduled" : "disabled"),
            last_result_ref: state?.lastResultRef ?? null,
            last_error: state?.lastError ?? null,
          };
        });
        if (values.json) println(io.stdout, JSON.stringify(rows));
        else if (rows.length === 0) println(io.stdout, "no jobs in cron/jobs.toml");
        else {
          for (const r of rows) {
            println(
              io.stdout,
              `${r.id.padEnd(24)} ${`${r.schedule} ${r.timezone}`.padEnd(32)} ${r.status.padEnd(10)} next ${
                r.next_run ?? "-"
              }  last ${r.last_run ?? "-"}`,
            );
          }
        }
      } finally {
        db.close();
      }
      return 0;
    }

    if (!jobId) throw new UsageError("missing <job-id>");
    const runtime = await AgentRuntime.open(brain.root, {
      env: io.env,
      ...(values.workspace ? { workspace: values.workspace } : {}),
    });
    try {
      const scheduler = createRuntimeScheduler(runtime, { watch: false });
      const outcome = await scheduler.runNow(jobId, values.prompt);
      println(
        io.stdout,
        JSON.stringify({
          job_id: outcome.jobId,
          run_id: outcome.runId,
          session_id: outcome.sessionId,
          status: outcome.status,
          result_ref: outcome.resultRef ?? null,
          text: outcome.text ?? "",
          ...(outcome.error ? { error: outcome.error } : {}),
        }),
      );
      return outcome.status === "succeeded" ? 0 : 1;
    } finally {
      await runtime.close();
    }
  },
};
