import { z } from "zod";
import { aBoolean, aString } from "../common.js";
import { defineContract } from "../registry.js";
import { cronExpression, ianaTimeZone } from "./cron-expression.js";
import { agentName, cronJobId } from "./names.js";

/** One scheduled job. Without `agent` the job runs as the brain's default agent. */
export const cronJobSchema = z.strictObject({
  id: cronJobId,
  schedule: cronExpression,
  // Cells have no meaningful local time, so a schedule without a zone is read in UTC, never the host's zone.
  timezone: ianaTimeZone.default("UTC"),
  agent: agentName.optional(),
  prompt: aString().regex(/\S/, "must not be blank"),
  enabled: aBoolean().default(true),
});
export type CronJob = z.output<typeof cronJobSchema>;

/** `/mnt/brain/cron/jobs.toml` (seed 003 §8.2): `[[jobs]]` tables; ids are unique because runs are keyed by them. */
export const cronJobsSchema = z.strictObject({
  jobs: z
    .array(cronJobSchema)
    .default([])
    .superRefine((jobs, ctx) => {
      const seen = new Set<string>();
      for (const [i, job] of jobs.entries()) {
        if (seen.has(job.id)) {
          ctx.addIssue({
            code: "custom",
            path: [i, "id"],
            message: `repeats job id ${job.id}`,
            input: job.id,
          });
        }
        seen.add(job.id);
      }
    }),
});
export type CronJobs = z.output<typeof cronJobsSchema>;
export type CronJobsInput = z.input<typeof cronJobsSchema>;

export const cronJobsContract = defineContract({
  kind: "cron-jobs",
  seed: "003",
  title: "Cron jobs file (jobs.toml)",
  description:
    "The brain's scheduled jobs, /mnt/brain/cron/jobs.toml: one [[jobs]] table per job with a unique id, a " +
    "5- or 6-field cron schedule, an IANA time zone (default UTC), the agent to run as, the prompt and enabled.",
  format: "toml",
  schema: cronJobsSchema,
});
