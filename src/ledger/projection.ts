import type { ProjectedEvent } from "./event-store.js";
import { applyOrderEvent } from "./order-projection.js";
import { applyRunEvent, type FileOrder } from "./run-projection.js";
import type { OrderSnapshot, RunSnapshot } from "./snapshot.js";

/** A snapshot updated in place: what a set that owns every snapshot it holds passes as the reducers' copy. */
const itself = <T>(snapshot: T): T => snapshot;

/**
 * Snapshots being projected: those loaded for one append transaction, or all of them during a rebuild.
 * `apply` validates an event against the run and order it names and records their next snapshots; it either
 * applies the event whole or throws without changing anything, so a refused event leaves the set as it was.
 *
 * A rebuild's set (`{ owned: true }`) starts empty, so it made every snapshot it holds, and a refused event
 * ends the rebuild with the set thrown away: it updates its snapshots in place instead of copying one of each
 * per event, and a refusal may leave it half-applied.
 */
export class SnapshotSet {
  readonly runs = new Map<string, RunSnapshot>();
  readonly orders = new Map<string, OrderSnapshot>();
  readonly changedRuns = new Set<string>();
  readonly changedOrders = new Set<string>();

  /**
   * Order lists this set made itself, each with the index of its orders: filing an order's status in them is
   * O(1) in place. A list loaded from the store, possibly shared with a cache, is copied once per set the first
   * time one of its orders changes, so a batch or a rebuild no longer copies a run's whole list per event.
   */
  private readonly ownLists = new WeakMap<RunSnapshot["orders"], Map<string, number>>();
  private readonly fileOrder: FileOrder = (orders, order) => {
    let list = orders;
    let index = this.ownLists.get(list);
    if (index === undefined) {
      const at = orders.findIndex((o) => o.order_id === order.order_id);
      if (at >= 0 && orders[at]?.status === order.status) return orders;
      list = [...orders];
      index = new Map(list.map((o, i) => [o.order_id, i]));
      this.ownLists.set(list, index);
    }
    const entry = { order_id: order.order_id, status: order.status };
    const at = index.get(order.order_id);
    if (at === undefined) {
      index.set(order.order_id, list.length);
      list.push(entry);
    } else if (list[at]?.status !== order.status) {
      // A new entry object rather than a change to the old one, which a list this set copied still shares.
      list[at] = entry;
    }
    return list;
  };

  /** What the reducers copy a snapshot with: the reducers' own copy, or none for a set that owns its snapshots. */
  private readonly copy: typeof itself | undefined;

  constructor(options: { owned?: boolean } = {}) {
    this.copy = options.owned ? itself : undefined;
  }

  apply(event: ProjectedEvent): void {
    // The order first, so that its run can file the order's new status in its order list. Both are computed
    // before either is stored, and the run files the order only once every check has passed, so a refused
    // event leaves the set as it was.
    const order =
      event.order_id === null
        ? undefined
        : applyOrderEvent(this.orders.get(event.order_id), event, this.copy);
    const run =
      event.run_id === null
        ? undefined
        : applyRunEvent(this.runs.get(event.run_id), event, order, this.fileOrder, this.copy);
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

/** The run and order ids a list of events names, and those a writer expects versions of: what an append loads. */
export function namedIds(
  events: ReadonlyArray<{ run_id: string | null; order_id: string | null }>,
  expect: ReadonlyArray<{ kind: "run" | "order"; id: string }> = [],
): { runIds: string[]; orderIds: string[] } {
  const runIds = new Set<string>();
  const orderIds = new Set<string>();
  for (const e of events) {
    if (e.run_id !== null) runIds.add(e.run_id);
    if (e.order_id !== null) orderIds.add(e.order_id);
  }
  for (const e of expect) (e.kind === "run" ? runIds : orderIds).add(e.id);
  return { runIds: [...runIds], orderIds: [...orderIds] };
}
