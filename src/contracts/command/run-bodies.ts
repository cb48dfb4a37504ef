import { z } from "zod";
import { idString, jsonObject, nonEmptyString } from "../common.js";
import { type Contract, defineContract } from "../registry.js";
import { artifactPointerSchema } from "./aar-file.js";
import { runStatusSchema } from "./enums.js";
import { defineResponseContract } from "./envelope.js";
import { text } from "./fields.js";
import { checkPlanGraph } from "./plan-graph.js";

/**
 * POST /runs (seed 000 §3.2). theater_hint may be left out as on POST /chat; metadata is free-form because
 * RUN_UPDATED speaks of run metadata without defining it.
 */
export const runCreateRequestSchema = z.strictObject({
  user_id: idString,
  theater_hint: idString.optional(),
  objective: nonEmptyString,
  metadata: jsonObject.optional(),
});

/** The created run; its status is OPEN until the CO completes, fails or cancels it. */
export const runCreateDataSchema = z.strictObject({
  run_id: idString,
  status: runStatusSchema,
});

/**
 * POST /runs/{run_id}/plan: the orders created (1-N) and, for each order that waits on others, the orders
 * it waits on. Orders absent from dependencies wait on nothing. The graph must be acyclic and closed over
 * order_ids, otherwise dispatch could never start some order.
 */
export const planDataSchema = z
  .strictObject({
    run_id: idString,
    order_ids: z.array(idString).min(1, "must list at least one order"),
    dependencies: z.array(
      z.strictObject({
        order_id: idString,
        depends_on: z.array(idString).min(1, "must list at least one order; leave the order out instead"),
      }),
    ),
  })
  .superRefine((plan, ctx) => {
    for (const p of checkPlanGraph(plan)) ctx.addIssue({ code: "custom", message: p.message, path: p.path });
  });

/** POST /runs/{run_id}/dispatch: which orders went to the queue and which still wait on dependencies. */
export const dispatchDataSchema = z
  .strictObject({
    run_id: idString,
    enqueued: z.array(idString),
    waiting: z.array(idString),
  })
  .superRefine((d, ctx) => {
    const enqueued = new Set(d.enqueued);
    d.waiting.forEach((id, i) => {
      if (enqueued.has(id))
        ctx.addIssue({ code: "custom", message: `must not also be enqueued: ${id}`, path: ["waiting", i] });
    });
  });

/** POST /runs/{run_id}/synthesize: the final reply built from the run's artifacts and AARs. */
export const synthesizeDataSchema = z.strictObject({
  run_id: idString,
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
