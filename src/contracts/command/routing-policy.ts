import { z } from "zod";
import { anyId, expected, isoUtc, nonEmptyString, oneOf } from "../common.js";
import { count, positiveInt } from "./fields.js";
import { outcomeRowSchema } from "./learning-bodies.js";
import { orderProfileSchema, orderTypeSchema } from "./order-file.js";

/**
 * The routing policy the learning service writes (seed 000 §3.10 "Updated routing recommendations (policy doc)",
 * "auditable"). IronClaw's shape: per task type the profile orders of that type go to and the outcomes behind the
 * choice, which ledger events it was computed from, and what changed against the version before it.
 */
export const policyRouteSchema = z.looseObject({
  task_type: orderTypeSchema,
  profile: orderProfileSchema,
  /** Smoothed success, (succeeded − corrections + 1) / (orders + 2): what the profiles of a type are ranked by. */
  score: z.number({ error: expected("a number") }),
  reason: nonEmptyString,
  stats: outcomeRowSchema,
});

/** The ledger range a version was computed from: positions and the first and last event ids read. */
export const policyDerivationSchema = z.looseObject({
  after_position: count,
  through_position: count,
  events: count,
  first_event_id: anyId.nullable(),
  last_event_id: anyId.nullable(),
});

/** One task type whose route a version changed: the profile name before (null: none) and after (null: dropped). */
export const policyChangeSchema = z.looseObject({
  task_type: orderTypeSchema,
  from: nonEmptyString.nullable(),
  to: nonEmptyString.nullable(),
});

export const routingPolicySchema = z.looseObject({
  version: positiveInt,
  created_at: isoUtc,
  routes: z.array(policyRouteSchema),
  /** Every profile × task type measured, the preferred ones and the others. */
  outcomes: z.array(outcomeRowSchema),
  corrections: count,
  derived_from: policyDerivationSchema,
  diff: z.looseObject({ previous_version: positiveInt.nullable(), changes: z.array(policyChangeSchema) }),
});

/**
 * The payload of the POLICY_UPDATED events the learning service appends; policy_version is the version the event
 * makes active. `learned`: a tick wrote a new version (the document rides along); `pinned` / `unpinned`: a person
 * held the active version against ticks or released it; `rolled_back`: a person made an earlier version active.
 */
export const policyEventPayloadSchema = z.discriminatedUnion(
  "action",
  [
    z.looseObject({ action: z.literal("learned"), policy_version: positiveInt, policy: routingPolicySchema }),
    z.looseObject({ action: z.literal("pinned"), policy_version: positiveInt, by: nonEmptyString }),
    z.looseObject({ action: z.literal("unpinned"), policy_version: positiveInt, by: nonEmptyString }),
    z.looseObject({
      action: z.literal("rolled_back"),
      policy_version: positiveInt,
      from_version: positiveInt,
      by: nonEmptyString,
    }),
  ],
  { error: oneOf(["learned", "pinned", "unpinned", "rolled_back"]) },
);

/** POST /api/learn/policy/pin and /rollback: the version to hold or to return to. */
export const policyVersionBodySchema = z.object({ version: positiveInt });

/**
 * POST /api/runs/{id}/feedback: a person's verdict on a run's result, the correction signal seed 000 §3.10
 * learns from ("User correction signals (if logged)"); a thumbs-down counts against the profiles of its orders.
 */
export const runFeedbackBodySchema = z.object({
  rating: z.enum(["down", "up"], { error: oneOf(["down", "up"]) }),
  note: z
    .string({ error: expected("a string") })
    .max(2000, "must be at most 2000 characters")
    .optional(),
});

/** Where the policy stands: the active version, whether a person pinned it, and every version there is. */
export const policyStateSchema = z.looseObject({
  active_version: positiveInt.nullable(),
  pinned: z.boolean(),
  versions: z.array(
    z.looseObject({
      version: positiveInt,
      created_at: isoUtc,
      routes: count,
      changes: count,
      active: z.boolean(),
    }),
  ),
});

/** GET /api/learn/policy: the active version, or `?version=` one, with where the policy stands. */
export const policyViewSchema = z.looseObject({
  active_version: positiveInt.nullable(),
  pinned: z.boolean(),
  policy: routingPolicySchema.nullable(),
});

export const policyQuerySchema = z.strictObject({
  version: z.coerce
    .number({ error: "must be a number" })
    .int("must be a whole number")
    .min(1, "must be at least 1")
    .optional(),
});

export type PolicyRoute = z.output<typeof policyRouteSchema>;
export type PolicyChange = z.output<typeof policyChangeSchema>;
export type PolicyDerivation = z.output<typeof policyDerivationSchema>;
export type RoutingPolicy = z.output<typeof routingPolicySchema>;
export type PolicyEventPayload = z.output<typeof policyEventPayloadSchema>;
export type RunFeedback = z.output<typeof runFeedbackBodySchema>;
export type PolicyState = z.output<typeof policyStateSchema>;
export type PolicyView = z.output<typeof policyViewSchema>;
