import { describe, expect, it } from "vitest";
import type { LedgerEventType } from "../contracts/index.js";
import { IllegalTransitionError } from "./errors.js";
import type { RecordedEvent } from "./event-store.js";
import { applyOrderEvent } from "./order-projection.js";
import { SnapshotSet } from "./projection.js";
import { applyRunEvent } from "./run-projection.js";
import type { OrderSnapshot, RunSnapshot } from "./snapshot.js";

let position = 0;
function event(
  type: LedgerEventType,
  orderId: string | null,
  payload: Record<string, unknown> = {},
): RecordedEvent {
  position++;
  return {
    position,
    event_id: `e${position}`,
    ts: "2026-01-14T16:21:00Z",
    type,
    garrison_id: "local",
    theater_id: "demo",
    run_id: "r1",
    order_id: orderId,
    unit_id: type === "ORDER_CLAIMED" ? "assault_1" : null,
    payload,
  };
}

/** Orders created, claimed, started and completed in an interleaved order, then the run completed. */
function interleaved(orders: number): RecordedEvent[] {
  const ids = Array.from({ length: orders }, (_, i) => `o${i}`);
  const steps: Array<[LedgerEventType, Record<string, unknown>]> = [
    ["ORDER_CREATED", {}],
    ["ORDER_CLAIMED", {}],
    ["ORDER_STARTED", { attempt: 1 }],
    ["ARTIFACT_WRITTEN", { path: "out.txt" }],
    ["ORDER_COMPLETED", {}],
  ];
  const events = [event("RUN_CREATED", null)];
  for (const [type, payload] of steps) for (const id of ids) events.push(event(type, id, payload));
  events.push(event("RUN_COMPLETED", null));
  return events;
}

/** The same events folded through the pure reducers, one copy per event. */
function foldPurely(events: readonly RecordedEvent[]): {
  run: RunSnapshot | undefined;
  orders: Map<string, OrderSnapshot>;
} {
  let run: RunSnapshot | undefined;
  const orders = new Map<string, OrderSnapshot>();
  for (const e of events) {
    const order = e.order_id === null ? undefined : applyOrderEvent(orders.get(e.order_id), e);
    run = applyRunEvent(run, e, order);
    if (order) orders.set(order.order_id, order);
  }
  return { run, orders };
}

describe("projecting a batch of events", () => {
  it("gives the same snapshots as the pure reducers, however the orders interleave", () => {
    const events = interleaved(40);
    const set = new SnapshotSet();
    for (const e of events) set.apply(e);
    const pure = foldPurely(events);
    expect(set.runs.get("r1")).toEqual(pure.run);
    expect(set.runs.get("r1")?.orders).toHaveLength(40);
    expect(new Map(set.orders)).toEqual(pure.orders);
  });

  it("never changes a snapshot it was given, such as one shared with a cache", () => {
    const events = interleaved(3);
    const earlier = foldPurely(events.slice(0, 4));
    const loaded = earlier.run;
    if (!loaded) throw new Error("no run");
    const frozen = structuredClone(loaded);
    const set = new SnapshotSet();
    set.runs.set("r1", loaded);
    for (const [id, order] of earlier.orders) set.orders.set(id, order);
    for (const e of events.slice(4)) set.apply(e);
    expect(loaded).toEqual(frozen);
    expect(set.runs.get("r1")?.orders.map((o) => o.status)).toEqual(["COMPLETED", "COMPLETED", "COMPLETED"]);
  });

  it("leaves the run and its order list as they were when an event is refused", () => {
    const set = new SnapshotSet();
    for (const e of interleaved(2).slice(0, 3)) set.apply(e);
    const before = structuredClone(set.runs.get("r1"));
    // The run is fine with the order, but the order is not created yet: refused before anything is filed.
    expect(() => set.apply(event("ORDER_STARTED", "o9", { attempt: 1 }))).toThrow(IllegalTransitionError);
    set.apply(event("RUN_COMPLETED", null));
    // A finished run takes no new orders: the order is projected first, the run refuses it.
    expect(() => set.apply(event("ORDER_CREATED", "o3"))).toThrow(IllegalTransitionError);
    expect(set.runs.get("r1")?.orders).toEqual(before?.orders);
    expect(set.orders.has("o3")).toBe(false);
  });

  it("gives a rebuild's own set the same snapshots, updated in place rather than copied per event", () => {
    const events = interleaved(40);
    // A worktree event reads the snapshot's old state after the copy is made: in place, it
    // must read it before anything is written.
    events.splice(
      events.length - 1,
      0,
      event("WORKTREE_CREATED", "o3", { worktree_path: "w/o3", branch: "b3" }),
    );
    const owned = new SnapshotSet({ owned: true });
    const copying = new SnapshotSet();
    for (const e of events.slice(0, 2)) {
      owned.apply(e);
      copying.apply(e);
    }
    const ownedOrder = owned.orders.get("o0");
    const copiedOrder = copying.orders.get("o0");
    for (const e of events.slice(2)) {
      owned.apply(e);
      copying.apply(e);
    }
    expect(new Map(owned.orders)).toEqual(new Map(copying.orders));
    expect(owned.runs.get("r1")).toEqual(copying.runs.get("r1"));
    expect(owned.runs.get("r1")?.status).toBe("COMPLETE");
    expect(owned.orders.get("o3")?.worktree_path).toBe("w/o3");
    // The owned set kept its order objects; the copying one replaced them, leaving the earlier ones unchanged.
    expect(owned.orders.get("o0")).toBe(ownedOrder);
    expect(copying.orders.get("o0")).not.toBe(copiedOrder);
    expect(copiedOrder?.status).toBe("QUEUED");
  });

  it("refuses in a rebuild's own set what it refuses elsewhere", () => {
    const owned = new SnapshotSet({ owned: true });
    for (const e of interleaved(2)) owned.apply(e);
    expect(() => owned.apply(event("ORDER_STARTED", "o0", { attempt: 1 }))).toThrow(IllegalTransitionError);
    expect(() => owned.apply(event("ORDER_CREATED", "o5"))).toThrow(IllegalTransitionError);
  });
});
