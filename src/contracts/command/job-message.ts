import { z } from "zod";
import { idString, oneOf } from "../common.js";
import { defineContract } from "../registry.js";
import { absolutePath, positiveInt } from "./fields.js";
import { orderConstraintsSchema, orderProfileSchema, toolPolicySchema } from "./order-file.js";

export const JOB_TYPES = ["EXECUTE_ORDER"] as const;
export const jobTypeSchema = z.enum(JOB_TYPES, { error: oneOf(JOB_TYPES) });

/**
 * A job on the worker queue (seed 000 §4). A worker acts on it without reading anything else first, so it
 * is strict and complete; attempt counts from 1 and may not pass the order's retry cap.
 */
export const jobMessageSchema = z
  .strictObject({
    job_type: jobTypeSchema,
    order_id: idString,
    run_id: idString,
    theater_id: idString,
    unit_id: idString,
    worktree_path: absolutePath,
    attempt: positiveInt,
    profile: orderProfileSchema,
    constraints: orderConstraintsSchema.omit({ tool_policy: true }),
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
