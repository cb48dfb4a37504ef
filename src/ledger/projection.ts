import type { RecordedEvent } from "./event-store.js";
import { applyOrderEvent } from "./order-projection.js";
import { applyRunEvent } from "./run-projection.js";
import type { OrderSnapshot, RunSnapshot } from "./snapshot.js";

/**
 * Snapshots being projected: those loaded for one append transaction, or all of them during a rebuild.
 * `apply` validates an event against the run and order it names and records their next snapshots; it either
 * applies the event whole or throws without changing anything, so a refused event leaves the set as it was.
 */
export class SnapshotSet {
  readonly runs = new Map<string, RunSnapshot>();
  readonly orders = new Map<string, OrderSnapshot>();
  readonly changedRuns = new Set<string>();
  readonly changedOrders = new Set<string>();

  apply(event: RecordedEvent): void {
    // The order first, so that its run can file the order's new status in its order list. Both are computed
    // before either is stored, so a refused event leaves the set as it was.
    const order =
      event.order_id === null ? undefined : applyOrderEvent(this.orders.get(event.order_id), event);
    const run = event.run_id === null ? undefined : applyRunEvent(this.runs.get(event.run_id), event, order);
    if (run) {
      this.runs.set(run.run_id, run);
      this.changedRuns.add(run.run_id);
    }
    if (order) {
      this.orders.set(order.order_id, order);
      this.changedOrders.add(order.order_id);
    }
  }

  /** The run snapshots this set changed, or all it holds (a rebuild writes them all). */
  runSnapshots(which: "changed" | "all"): RunSnapshot[] {
    return which === "all" ? [...this.runs.values()] : pick(this.runs, this.changedRuns);
  }

  orderSnapshots(which: "changed" | "all"): OrderSnapshot[] {
    return which === "all" ? [...this.orders.values()] : pick(this.orders, this.changedOrders);
  }
}

function pick<T>(snapshots: ReadonlyMap<string, T>, ids: ReadonlySet<string>): T[] {
  const out: T[] = [];
  for (const id of ids) {
    const snapshot = snapshots.get(id);
    if (snapshot !== undefined) out.push(snapshot);
  }
  return out;
}

/** The run and order ids a list of events names: what an append has to load before projecting. */
export function namedIds(events: ReadonlyArray<{ run_id: string | null; order_id: string | null }>): {
  runIds: string[];
  orderIds: string[];
} {
  const runIds = new Set<string>();
  const orderIds = new Set<string>();
  for (const e of events) {
    if (e.run_id !== null) runIds.add(e.run_id);
    if (e.order_id !== null) orderIds.add(e.order_id);
  }
  return { runIds: [...runIds], orderIds: [...orderIds] };
}
