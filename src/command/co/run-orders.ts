import type { EventStore, OrderSnapshot, RunSnapshot } from "../../ledger/index.js";

/** The snapshot of every order of a run, by order id. */
export async function orderSnapshots(
  store: EventStore,
  run: RunSnapshot,
): Promise<Map<string, OrderSnapshot>> {
  const found = await Promise.all(run.orders.map((o) => store.getOrder(o.order_id)));
  return new Map(found.flatMap((o) => (o ? [[o.order_id, o] as const] : [])));
}
