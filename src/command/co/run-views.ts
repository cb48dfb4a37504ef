import type { ArtifactPointer } from "../../contracts/index.js";
import { NotFoundError } from "../../core/index.js";
import type { EventStore, OrderSnapshot, RunSnapshot } from "../../ledger/index.js";
import { type PlannedOrder, plannedOrderSchema, readPlannedOrders } from "./planned-order.js";
import { orderSnapshots } from "./run-orders.js";

/** One order in a run's view: its status as the run snapshot files it, and what the plan and snapshot add. */
export type RunOrderView = RunSnapshot["orders"][number] & {
  key: string | null;
  objective: string | null;
  depends_on: string[];
  attempt: number;
  integration_state: OrderSnapshot["integration_state"];
  aar_path: string | null;
  /** The latest AAR's summary as its AAR_WRITTEN carried it (null before one is written). */
  aar_summary: string | null;
};

/** GET /runs/{run_id} (seed 000 §3.1 "run status + summary"): the run snapshot, its orders, their artifacts. */
export interface RunView extends RunSnapshot {
  orders: RunOrderView[];
  artifacts: ArtifactPointer[];
}

/** GET /orders/{order_id} (§3.3 "order + derived snapshot + latest known artifact pointers") and its plan. */
export interface OrderView extends OrderSnapshot {
  /** The order as planned (null when its ORDER_CREATED was not written by the CO). */
  plan: PlannedOrder | null;
}

export async function readRunView(store: EventStore, runId: string): Promise<RunView> {
  const run = await store.getRun(runId);
  if (!run) throw new NotFoundError("run", runId);
  const planned = await readPlannedOrders(store, runId, "skip");
  const snapshots = await orderSnapshots(store, run);
  const summaries = await aarSummaries(store, runId);
  const orders = run.orders.map(({ order_id, status }) => {
    const plan = planned.get(order_id);
    const snapshot = snapshots.get(order_id);
    return {
      order_id,
      status,
      key: plan?.key ?? null,
      objective: plan?.objective ?? null,
      depends_on: plan?.depends_on ?? [],
      attempt: snapshot?.attempt ?? 0,
      integration_state: snapshot?.integration_state ?? null,
      aar_path: snapshot?.aar_path ?? null,
      aar_summary: summaries.get(order_id) ?? null,
    };
  });
  const artifacts = [...snapshots.values()].flatMap((o) =>
    o.artifacts.map((a) => ({ order_id: o.order_id, ...a })),
  );
  return { ...run, orders, artifacts };
}

/** Each order's latest AAR summary, read from the run's AAR_WRITTEN events (later attempts overwrite earlier). */
async function aarSummaries(store: EventStore, runId: string): Promise<Map<string, string>> {
  const summaries = new Map<string, string>();
  for (const event of await store.read({ runId, types: ["AAR_WRITTEN"] })) {
    const summary = event.payload.summary;
    if (event.order_id && typeof summary === "string") summaries.set(event.order_id, summary);
  }
  return summaries;
}

export async function readOrderView(store: EventStore, orderId: string): Promise<OrderView> {
  const order = await store.getOrder(orderId);
  if (!order) throw new NotFoundError("order", orderId);
  const [created] = await store.read({ orderId, types: ["ORDER_CREATED"], limit: 1 });
  const plan = plannedOrderSchema.safeParse(created?.payload);
  return { ...order, plan: plan.success ? plan.data : null };
}
