import { z } from "zod";
import { idString, jsonObject, nonEmptyString } from "../common.js";
import { defineContract } from "../registry.js";
import { count, flag, positiveInt, token, worktreePath } from "./fields.js";

/**
 * What a worker may touch. fs_allowlist holds worktree-relative paths or globs (`./`, `./*`); when it is
 * absent the worker gets its worktree and nothing else. Strict: a misspelt policy key must not silently
 * widen or narrow what a worker may do.
 */
export const toolPolicySchema = z.strictObject({
  network: flag,
  fs_allowlist: z.array(worktreePath).optional(),
});

/** The model profile an order runs with (`executor_default` → a model id). */
export const orderProfileSchema = z.strictObject({
  name: nonEmptyString,
  model: nonEmptyString,
});

/** Budget and retry cap of an order. The job message carries tool_policy beside it instead of inside it. */
export const orderConstraintsSchema = z.strictObject({
  budget_seconds: positiveInt,
  max_retries: count,
  tool_policy: toolPolicySchema.optional(),
});

/** The order type (`draft`, `research`, …): the task_type the learning service groups outcomes by. */
export const orderTypeSchema = token;

/**
 * order.json in an order's worktree (seed 000 §2). The CO writes it whole, so every key of the seed's
 * example is required and unknown keys are refused; `inputs` is the order's free-form material.
 */
export const orderFileSchema = z.strictObject({
  order_id: idString,
  run_id: idString,
  theater_id: idString,
  type: orderTypeSchema,
  objective: nonEmptyString,
  inputs: jsonObject,
  constraints: orderConstraintsSchema,
  profile: orderProfileSchema,
});

export type ToolPolicy = z.output<typeof toolPolicySchema>;
export type OrderProfile = z.output<typeof orderProfileSchema>;
export type OrderConstraints = z.output<typeof orderConstraintsSchema>;
export type OrderFile = z.output<typeof orderFileSchema>;

export const orderContract = defineContract({
  kind: "order",
  seed: "000",
  title: "Order file (order.json)",
  description:
    "The order a worker executes, written into its worktree: ids, type, objective, inputs, constraints " +
    "(budget, retry cap, tool policy) and model profile.",
  format: "json",
  schema: orderFileSchema,
});
