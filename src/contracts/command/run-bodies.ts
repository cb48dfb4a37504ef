import { z } from "zod";
import { anyId, jsonObject, nonEmptyString, pathSafeId } from "../common.js";
import { type Contract, defineContract } from "../registry.js";
import { artifactPointerSchema } from "./aar-file.js";
import { runStatusSchema } from "./enums.js";
import { defineResponseContract } from "./envelope.js";
import { text } from "./fields.js";
import { checkPlanGraph } from "./plan-graph.js";

/**
 * POST /runs (seed 000 §3.2 `{ "user_id", "theater_hint", "objective" }`). theater_hint may be left out as on
 * POST /chat; metadata is free-form because RUN_UPDATED ("objective/metadata change") speaks of run metadata
 * without defining it.
 */
export const runCreateRequestSchema = z.looseObject({
  user_id: anyId,
  theater_hint: pathSafeId.optional(),
  objective: nonEmptyString,
  metadata: jsonObject.optional(),
});

/**
 * The created run. The seed prints no response for POST /runs; IronClaw answers with the run's id and its
 * run_status (§0), OPEN until the CO completes, fails or cancels it.
 */
export const runCreateDataSchema = z.looseObject({
  run_id: pathSafeId,
  status: runStatusSchema,
});

/**
 * POST /runs/{run_id}/plan (§3.2 "Produces 1-N orders … Response includes created `order_ids` and
 * dependencies"): the orders created and, for each order that waits on others, the orders it waits on. Orders
 * absent from dependencies wait on nothing. The graph must be acyclic and closed over order_ids, otherwise
 * dispatch could never start some order.
 */
export const planDataSchema = z
  .looseObject({
    run_id: pathSafeId,
    order_ids: z.array(pathSafeId).min(1, "must list at least one order"),
    dependencies: z.array(
      z.looseObject({
        order_id: pathSafeId,
        depends_on: z.array(pathSafeId).min(1, "must list at least one order; leave the order out instead"),
      }),
    ),
  })
  .superRefine((plan, ctx) => {
    for (const p of checkPlanGraph(plan)) ctx.addIssue({ code: "custom", message: p.message, path: p.path });
  });

/**
 * POST /runs/{run_id}/dispatch (§3.2 "Enqueues orders to worker runtime"; the seed prints no response): which
 * orders went to the queue and which still wait on dependencies. An order is in one list or the other.
 */
export const dispatchDataSchema = z
  .looseObject({
    run_id: pathSafeId,
    enqueued: z.array(pathSafeId),
    waiting: z.array(pathSafeId),
  })
  .superRefine((d, ctx) => {
    const enqueued = new Set(d.enqueued);
    d.waiting.forEach((id, i) => {
      if (enqueued.has(id))
        ctx.addIssue({ code: "custom", message: `must not also be enqueued: ${id}`, path: ["waiting", i] });
    });
  });

/** POST /runs/{run_id}/synthesize (§3.2 "Reads artifacts/AARs and produces final reply"), IronClaw's shape. */
export const synthesizeDataSchema = z.looseObject({
  run_id: pathSafeId,
  status: runStatusSchema,
  reply: text,
  artifacts: z.array(artifactPointerSchema),
});

export type RunCreateRequest = z.input<typeof runCreateRequestSchema>;
export type RunCreateData = z.output<typeof runCreateDataSchema>;
export type PlanData = z.output<typeof planDataSchema>;
export type DispatchData = z.output<typeof dispatchDataSchema>;
export type SynthesizeData = z.output<typeof synthesizeDataSchema>;

export const runContracts: Contract[] = [
  defineContract({
    kind: "run-create-request",
    seed: "000",
    title: "Run create request (POST /runs)",
    description: "A user's objective for the CO, with an optional theater hint and free-form metadata.",
    format: "json",
    schema: runCreateRequestSchema,
  }),
  defineResponseContract({
    kind: "run-create-response",
    title: "Run create response (POST /runs)",
    description: "The new run's id and status.",
    data: runCreateDataSchema,
  }),
  defineResponseContract({
    kind: "plan-response",
    title: "Plan response (POST /runs/{run_id}/plan)",
    description: "The order ids the plan created and each order's prerequisites; the graph is acyclic.",
    data: planDataSchema,
  }),
  defineResponseContract({
    kind: "dispatch-response",
    title: "Dispatch response (POST /runs/{run_id}/dispatch)",
    description: "The orders enqueued to the worker runtime and those still waiting on dependencies.",
    data: dispatchDataSchema,
  }),
  defineResponseContract({
    kind: "synthesize-response",
    title: "Synthesize response (POST /runs/{run_id}/synthesize)",
    description: "The run's final reply, its status and pointers to its artifacts.",
    data: synthesizeDataSchema,
  }),
];
