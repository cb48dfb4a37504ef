import { z } from "zod";
import { aString, isoUtc } from "../common.js";
import { cronJobId } from "./names.js";
import { protocolHeader } from "./protocol-header.js";

/** Warden → inmate: run a cron job now; `prompt` overrides the job's own prompt for this run. */
export const jobTriggerSchema = z.strictObject({
  type: z.literal("JobTrigger"),
  ...protocolHeader,
  job_id: cronJobId,
  prompt: aString().min(1, "must not be empty").optional(),
});
export type JobTrigger = z.output<typeof jobTriggerSchema>;

export const JOB_STATUSES = ["queued", "running", "succeeded", "failed"] as const;

/** Why a run happened: its schedule, the one catch-up after downtime, or a manual trigger. */
export const JOB_RUN_REASONS = ["scheduled", "catch_up", "manual"] as const;
export type JobRunReason = (typeof JOB_RUN_REASONS)[number];
export type JobRunStatus = (typeof JOB_STATUSES)[number];

/**
 * Inmate → warden: a job's progress. `result_ref` points at where the result was written (seed 003 §8.2:
 * the day's log). A failed job must say why, and only a failed job carries an error.
 */
export const jobStatusSchema = z
  .strictObject({
    type: z.literal("JobStatus"),
    ...protocolHeader,
    job_id: cronJobId,
    status: z.enum(JOB_STATUSES, `must be one of ${JOB_STATUSES.join(", ")}`),
    reason: z.enum(JOB_RUN_REASONS, `must be one of ${JOB_RUN_REASONS.join(", ")}`).optional(),
    // The tick this run stands for; a catch-up run names the missed tick, not the time it ran.
    scheduled_for: isoUtc.optional(),
    result_ref: aString().min(1, "must not be empty").optional(),
    error: aString().min(1, "must not be empty").optional(),
  })
  .superRefine((msg, ctx) => {
    if (msg.status === "failed" && msg.error === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["error"],
        message: "is required when status is failed",
        input: msg,
      });
    }
    if (msg.status !== "failed" && msg.error !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["error"],
        message: "is only allowed when status is failed",
        input: msg.error,
      });
    }
  });
export type JobStatus = z.output<typeof jobStatusSchema>;
