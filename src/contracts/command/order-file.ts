import { z } from "zod";
import { jsonObject, nonEmptyString, pathSafeId } from "../common.js";
import { defineContract } from "../registry.js";
import { count, flag, positiveNumber, worktreePath } from "./fields.js";

/**
 * What a worker may touch (seed 000 §2 `"tool_policy": { "network": false, "fs_allowlist": ["./"] }`).
 * fs_allowlist holds worktree-relative paths or globs (`./`, `./*`); when it is absent the worker gets its
 * worktree and nothing else. Every grant is named and an absent one is the narrowest, so a key no reader
 * knows can never widen what a worker may do: it is kept, and `ironclaw validate` warns about it.
 */
export const toolPolicySchema = z.looseObject({
  network: flag,
  fs_allowlist: z.array(worktreePath).optional(),
});

/** The model profile an order runs with (seed 000 §2 `"profile": { "name": "executor_default", "model": … }`). */
export const orderProfileSchema = z.looseObject({
  name: nonEmptyString,
  model: nonEmptyString,
});

/**
 * Budget and retry cap of an order (seed 000 §2 `"constraints": { "budget_seconds": 60, "max_retries": 1, … }`).
 * A budget is a positive number of seconds; a retry cap counts whole retries. The job message (§4) carries
 * tool_policy beside constraints, and may carry it inside too when the constraints were copied from the order.
 */
export const orderConstraintsSchema = z.looseObject({
  budget_seconds: positiveNumber,
  max_retries: count,
  tool_policy: toolPolicySchema.optional(),
});

/**
 * The order type (seed 000 §2 `"type": "draft"`): the task_type the learning service groups outcomes by
 * (§3.10 "Success rate by profile/task_type"). The seed names no list and no spelling, so any non-empty name.
 */
export const orderTypeSchema = nonEmptyString;

/**
 * order.json in an order's worktree (seed 000 §2 "Order file (in worktree)"). Every key of the seed's example is
 * required: the worker acts on it without reading anything else (§3.5). `inputs` is the order's free-form
 * material; ids become the worktree's path and branch, so they are path-safe.
 */
export const orderFileSchema = z.looseObject({
  order_id: pathSafeId,
  run_id: pathSafeId,
  theater_id: pathSafeId,
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
