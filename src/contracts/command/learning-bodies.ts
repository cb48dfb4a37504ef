import { z } from "zod";
import { expected, isoUtc, nonEmptyString } from "../common.js";
import type { Contract } from "../registry.js";
import { defineResponseContract } from "./envelope.js";
import { learningPolicyVersionSchema } from "./event-payloads.js";
import { count, positiveInt } from "./fields.js";
import { orderTypeSchema } from "./order-file.js";

const millis = z.number({ error: expected("a number of milliseconds") }).min(0, "must be 0 or more");

/** Order latency percentiles in milliseconds; each is at most the next. */
export const latencyDistributionSchema = z
  .looseObject({ p50: millis, p90: millis, p99: millis, max: millis })
  .superRefine((l, ctx) => {
    const order = ["p50", "p90", "p99", "max"] as const;
    for (let i = 1; i < order.length; i++) {
      const [low, high] = [order[i - 1], order[i]] as const;
      if (low !== undefined && high !== undefined && l[low] > l[high])
        ctx.addIssue({ code: "custom", message: `must be at least ${low} (${l[low]})`, path: [high] });
    }
  });

/**
 * Outcomes of one profile on one task type (order type) over the window; a pair without orders has no row.
 * success_rate is succeeded/orders (rounding to 3 decimals allowed), kept beside the counts so that a policy
 * reader need not divide.
 */
export const outcomeRowSchema = z
  .looseObject({
    profile: nonEmptyString,
    task_type: orderTypeSchema,
    orders: positiveInt,
    succeeded: count,
    success_rate: z
      .number({ error: expected("a number") })
      .min(0, "must be 0 to 1")
      .max(1, "must be 0 to 1"),
    retries: count,
    latency_ms: latencyDistributionSchema,
  })
  .superRefine((row, ctx) => {
    if (row.succeeded > row.orders)
      ctx.addIssue({
        code: "custom",
        message: `must be at most orders (${row.orders})`,
        path: ["succeeded"],
      });
    else if (Math.abs(row.success_rate - row.succeeded / row.orders) > 0.0005)
      ctx.addIssue({
        code: "custom",
        message: `must equal succeeded / orders (${row.succeeded}/${row.orders})`,
        path: ["success_rate"],
      });
  });

/**
 * POST /learn/tick (seed 000 §3.10 "Success rate by profile/task_type", "Latency distribution", "Retry counts",
 * "User correction signals (if logged)", "Updated routing recommendations"), IronClaw's shape: what the tick
 * measured and the routing policy it produced.
 * corrections is null when user corrections are not logged; recommendations map a task type to the
 * profile the policy now routes it to. policy_version is the version the tick wrote (RUN_UPDATED or
 * POLICY_UPDATED carries the same number).
 */
export const learningTickDataSchema = z
  .looseObject({
    policy_version: learningPolicyVersionSchema,
    window: z.looseObject({ from: isoUtc, to: isoUtc }),
    events_considered: count,
    outcomes: z.array(outcomeRowSchema),
    corrections: count.nullable(),
    recommendations: z.array(
      z.looseObject({
        task_type: orderTypeSchema,
        profile: nonEmptyString,
        reason: nonEmptyString.optional(),
      }),
    ),
  })
  .superRefine((tick, ctx) => {
    if (Date.parse(tick.window.from) > Date.parse(tick.window.to))
      ctx.addIssue({ code: "custom", message: "must not be after window.to", path: ["window", "from"] });
  });

export type LatencyDistribution = z.output<typeof latencyDistributionSchema>;
export type OutcomeRow = z.output<typeof outcomeRowSchema>;
export type LearningTickData = z.output<typeof learningTickDataSchema>;

export const learningContracts: Contract[] = [
  defineResponseContract({
    kind: "learning-tick-response",
    title: "Learning tick response (POST /learn/tick)",
    description:
      "Success rate, retries and latency percentiles by profile and task type, correction count, routing " +
      "recommendations and the policy version written.",
    data: learningTickDataSchema,
  }),
];
