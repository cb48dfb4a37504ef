import {
  AgentRuntime,
  createRuntimeScheduler,
  JobStore,
  loadJobsFile,
  nextRunAfter,
  openAgentDatabase,
} from "../../agent/index.js";
import { BRAIN_PATHS, BrainLayout } from "../../memory/index.js";
import { println } from "../command.js";
import { defineCommand, defineGroup, jsonOption } from "../command-spec.js";
import { hostPageFetcher } from "../host-page-fetcher.js";

const BRAIN = {
  name: "brain",
  type: "string",
  required: true,
  valueName: "dir",
  description: "the brain directory",
} as const;

const list = defineCommand({
  name: "list",
  summary: "the jobs of cron/jobs.toml with their state from the brain database",
  description: `The jobs of cron/jobs.toml with their state from the brain database: next_run, last_run, status,
last_result_ref, last_error. A job the scheduler has not seen yet shows its computed next run.`,
  options: [BRAIN, jsonOption("the jobs")],
  async run({ options }, io) {
    const brain = BrainLayout.open(options.brain);
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
      if (options.json) println(io.stdout, JSON.stringify(rows));
      else if (rows.length === 0) println(io.stdout, "no jobs in cron/jobs.toml");
      else
        for (const r of rows)
          println(
            io.stdout,
            `${r.id.padEnd(24)} ${`${r.schedule} ${r.timezone}`.padEnd(32)} ${r.status.padEnd(10)} next ${
              r.next_run ?? "-"
            }  last ${r.last_run ?? "-"}`,
          );
    } finally {
      db.close();
    }
    return 0;
  },
});

const run = defineCommand({
  name: "run",
  summary: "run one job now as a fresh session and print one JSON object",
  description: `Runs one job now as a fresh session, appends the result to today's log and prints one JSON object:
job_id, run_id, session_id, status, result_ref, text, error. Exit code 0 when it succeeded.`,
  positionals: [{ name: "job-id", required: true, description: "the id of a job in cron/jobs.toml" }],
  options: [
    BRAIN,
    { name: "prompt", type: "string", valueName: "text", description: "instead of the job's own prompt" },
    {
      name: "workspace",
      type: "string",
      valueName: "dir",
      description: "the bash tool's working directory (default /tmp/workspace)",
    },
  ],
  async run({ options, args }, io) {
    const brain = BrainLayout.open(options.brain);
    const runtime = await AgentRuntime.open(brain.root, {
      env: io.env,
      pageFetcher: hostPageFetcher,
      ...(options.workspace ? { workspace: options.workspace } : {}),
    });
    try {
      const scheduler = createRuntimeScheduler(runtime, { watch: false });
      const outcome = await scheduler.runNow(args["job-id"], options.prompt);
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
});

export const cronCommand = defineGroup({
  name: "cron",
  summary: "list a brain's scheduled jobs and their state, or run one now",
  subcommands: [list, run],
});
