import { z } from "zod";
import { oneOf, pathSafeId } from "../common.js";
import { defineContract } from "../registry.js";
import { absolutePath, positiveInt } from "./fields.js";
import { orderConstraintsSchema, orderProfileSchema, toolPolicySchema } from "./order-file.js";

/**
 * Seed 000 §4 shows `"job_type": "EXECUTE_ORDER"`, the only job §3.5's worker contract describes; a worker
 * must not run as an order a job it does not know, so the type is checked.
 */
export const JOB_TYPES = ["EXECUTE_ORDER"] as const;
export const jobTypeSchema = z.enum(JOB_TYPES, { error: oneOf(JOB_TYPES) });

/**
 * A job on the worker queue (seed 000 §4 "Job message (for worker queue)"). A worker acts on it without
 * reading anything else first, so every key of the seed's example is required. attempt counts from 1
 * (`"attempt": 1`) and may not pass the order's retry cap (§3.8 "Reissue orders within retry caps").
 */
export const jobMessageSchema = z
  .looseObject({
    job_type: jobTypeSchema,
    order_id: pathSafeId,
    run_id: pathSafeId,
    theater_id: pathSafeId,
    unit_id: pathSafeId,
    worktree_path: absolutePath,
    attempt: positiveInt,
    profile: orderProfileSchema,
    constraints: orderConstraintsSchema,
    tool_policy: toolPolicySchema,
  })
  .superRefine((job, ctx) => {
    const cap = job.constraints.max_retries + 1;
    if (job.attempt > cap) {
      ctx.addIssue({
        code: "custom",
        message: `must be at most ${cap}: max_retries ${job.constraints.max_retries} allows ${cap} attempts`,
        path: ["attempt"],
      });
    }
  });

export type JobMessage = z.output<typeof jobMessageSchema>;

export const jobMessageContract = defineContract({
  kind: "job-message",
  seed: "000",
  title: "Worker queue job message",
  description:
    "An EXECUTE_ORDER job for the worker queue: ids, worktree path, attempt, profile, budget/retry constraints " +
    "and tool policy. Results go back as ledger events, not as a reply.",
  format: "json",
  schema: jobMessageSchema,
});
