import { z } from "zod";
import {
  jsonObject,
  nonEmptyString,
  type OrderConstraints,
  type OrderProfile,
  orderConstraintsSchema,
  orderProfileSchema,
  orderTypeSchema,
  pathSafeId,
} from "../../contracts/index.js";
import { issuesFromZod, ValidationError } from "../../core/index.js";
import type { EventStore } from "../../ledger/index.js";
import type { PlannedOrderReply } from "./plan-reply.js";

/**
 * The payload of the ORDER_CREATED events the CO appends: the order as planned, with its dependencies as the
 * order ids of the same run. Seed 000 leaves ORDER_CREATED's payload free-form, so the plan lives here, beside the
 * order it describes, and the ledger alone is enough to dispatch, retry or explain a run. It carries every field
 * of order.json (§2) that is not an id, so the vault can write order.json from it.
 */
export const plannedOrderSchema = z.looseObject({
  key: nonEmptyString,
  type: orderTypeSchema,
  objective: nonEmptyString,
  inputs: jsonObject,
  depends_on: z.array(pathSafeId),
  acceptance_commands: z.array(nonEmptyString),
  constraints: orderConstraintsSchema,
  profile: orderProfileSchema,
});

export type PlannedOrder = z.output<typeof plannedOrderSchema>;

/** What an order gets where its plan says nothing: the seed's example budget is 60 s, too short for code work. */
export interface OrderDefaults {
  profile: OrderProfile;
  constraints: OrderConstraints;
}

export const DEFAULT_ORDER_DEFAULTS: OrderDefaults = {
  profile: { name: "executor_default", model: "default" },
  constraints: { budget_seconds: 600, max_retries: 1, tool_policy: { network: false, fs_allowlist: ["./"] } },
};

/** The ORDER_CREATED payload for one order of a checked plan; `ids` maps every plan key to its order id. */
export function plannedOrderOf(
  order: PlannedOrderReply,
  ids: ReadonlyMap<string, string>,
  defaults: OrderDefaults,
): PlannedOrder {
  const constraints = { ...defaults.constraints, ...order.constraints };
  const toolPolicy = {
    ...defaults.constraints.tool_policy,
    ...order.constraints?.tool_policy,
    network: false,
  };
  return {
    ...order,
    depends_on: order.depends_on.map((key) => ids.get(key) ?? key),
    constraints: { ...constraints, tool_policy: toolPolicy },
    profile: { ...defaults.profile, ...order.profile },
  };
}

/**
 * Every planned order of a run, by order id, read from its ORDER_CREATED events. A payload that is not a plan
 * (an order another writer created by hand) is refused with the order named, because the CO cannot dispatch what
 * it cannot read; readers that only show a run pass `skip` and show such an order without its plan.
 */
export async function readPlannedOrders(
  store: EventStore,
  runId: string,
  onInvalid: "throw" | "skip" = "throw",
): Promise<Map<string, PlannedOrder>> {
  const events = await store.read({ runId, types: ["ORDER_CREATED"], limit: 10_000 });
  const orders = new Map<string, PlannedOrder>();
  for (const event of events) {
    if (event.order_id === null) continue;
    const result = plannedOrderSchema.safeParse(event.payload);
    if (!result.success && onInvalid === "skip") continue;
    if (!result.success)
      throw new ValidationError(
        `ORDER_CREATED of order ${event.order_id}`,
        issuesFromZod(result.error, ["payload"]),
      );
    orders.set(event.order_id, result.data);
  }
  return orders;
}
