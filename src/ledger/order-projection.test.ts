import { describe, expect, it } from "vitest";
import type { LedgerEventType, OrderStatus } from "../contracts/index.js";
import { IllegalTransitionError } from "./errors.js";
import type { RecordedEvent } from "./event-store.js";
import { applyOrderEvent } from "./order-projection.js";
import type { OrderSnapshot } from "./snapshot.js";

let position = 0;
function event(
  type: LedgerEventType,
  payload: Record<string, unknown> = {},
  unit: string | null = null,
): RecordedEvent {
  position++;
  return {
    position,
    event_id: `e${position}`,
    ts: `2026-01-14T16:21:${String(position % 60).padStart(2, "0")}Z`,
    type,
    garrison_id: "local",
    theater_id: "demo",
    run_id: "r1",
    order_id: "o1",
    unit_id: unit,
    payload,
  };
}

const PAYLOADS: Partial<Record<LedgerEventType, Record<string, unknown>>> = {
  ORDER_STARTED: { attempt: 1 },
  ORDER_REISSUED: { attempt: 9 },
  WORKTREE_CREATED: { worktree_path: "/w/o1", branch: "order_o1" },
  ARTIFACT_WRITTEN: { path: "outputs/a.txt" },
  AAR_WRITTEN: { path: "aar.json" },
  INTEGRATED: { commit_sha: "abcdef1" },
};

function replay(types: LedgerEventType[]): OrderSnapshot {
  let order: OrderSnapshot | undefined;
  for (const type of ["ORDER_CREATED" as const, ...types])
    order = applyOrderEvent(order, event(type, PAYLOADS[type]));
  if (!order) throw new Error("no order");
  return order;
}

/** Event sequences that bring a new order into each status. */
const REACH: Record<OrderStatus, LedgerEventType[]> = {
  QUEUED: [],
  CLAIMED: ["ORDER_CLAIMED"],
  RUNNING: ["ORDER_STARTED"],
  BLOCKED: ["ORDER_STARTED", "ORDER_BLOCKED"],
  COMPLETED: ["ORDER_STARTED", "ORDER_COMPLETED"],
  FAILED: ["ORDER_STARTED", "ORDER_FAILED"],
  CANCELLED: ["ORDER_CANCELLED"],
};

const LIFECYCLE: LedgerEventType[] = [
  "ORDER_ENQUEUED",
  "ORDER_CLAIMED",
  "ORDER_STARTED",
  "ORDER_BLOCKED",
  "ORDER_COMPLETED",
  "ORDER_FAILED",
  "ORDER_REISSUED",
  "ORDER_CANCELLED",
];

/** The whole order state machine: which lifecycle event each status accepts, and the status it leads to. */
const ALLOWED: Record<OrderStatus, Partial<Record<LedgerEventType, OrderStatus>>> = {
  QUEUED: {
    ORDER_ENQUEUED: "QUEUED",
    ORDER_CLAIMED: "CLAIMED",
    ORDER_STARTED: "RUNNING",
    ORDER_FAILED: "FAILED",
    ORDER_CANCELLED: "CANCELLED",
  },
  CLAIMED: {
    ORDER_STARTED: "RUNNING",
    ORDER_BLOCKED: "BLOCKED",
    ORDER_FAILED: "FAILED",
    ORDER_REISSUED: "QUEUED",
    ORDER_CANCELLED: "CANCELLED",
  },
  RUNNING: {
    ORDER_BLOCKED: "BLOCKED",
    ORDER_COMPLETED: "COMPLETED",
    ORDER_FAILED: "FAILED",
    ORDER_REISSUED: "QUEUED",
    ORDER_CANCELLED: "CANCELLED",
  },
  BLOCKED: {
    ORDER_STARTED: "RUNNING",
    ORDER_FAILED: "FAILED",
    ORDER_REISSUED: "QUEUED",
    ORDER_CANCELLED: "CANCELLED",
  },
  COMPLETED: {},
  FAILED: { ORDER_REISSUED: "QUEUED", ORDER_CANCELLED: "CANCELLED" },
  CANCELLED: {},
};

const cases = (Object.keys(REACH) as OrderStatus[]).flatMap((status) =>
  LIFECYCLE.map((type) => [status, type, ALLOWED[status][type] ?? "refused"] as const),
);

describe("order state machine", () => {
  it.each(cases)("%s + %s → %s", (status, type, next) => {
    const order = replay(REACH[status]);
    expect(order.status).toBe(status);
    const apply = () => applyOrderEvent(order, event(type, PAYLOADS[type]));
    if (next !== "refused") expect(apply().status).toBe(next);
    else {
      expect(apply).toThrow(IllegalTransitionError);
      expect(apply).toThrow(new RegExp(`^order o1 is ${status}: ${type} \\(event e\\d+\\) is not allowed`));
    }
  });

  it("refuses a second ORDER_CREATED and any event for an order that does not exist", () => {
    expect(() => replay(["ORDER_CREATED"])).toThrow(/order o1 is QUEUED: ORDER_CREATED .*already exists/);
    expect(() => applyOrderEvent(undefined, event("ORDER_ENQUEUED"))).toThrow(/order o1 is absent/);
  });

  it("records the unit, attempt and times of an attempt, and clears them on reissue", () => {
    let order = replay([]);
    order = applyOrderEvent(order, event("ORDER_CLAIMED", {}, "assault_7"));
    const start = event("ORDER_STARTED", { attempt: 1 }, "assault_7");
    order = applyOrderEvent(order, start);
    expect(order).toMatchObject({
      unit_id: "assault_7",
      attempt: 1,
      started_at: start.ts,
      finished_at: null,
    });
    const fail = event("ORDER_FAILED", { reason: "timeout" });
    order = applyOrderEvent(order, fail);
    expect(order).toMatchObject({ status: "FAILED", finished_at: fail.ts, unit_id: "assault_7" });
    order = applyOrderEvent(order, event("ORDER_REISSUED", { attempt: 2 }));
    expect(order).toMatchObject({
      status: "QUEUED",
      attempt: 2,
      unit_id: null,
      started_at: null,
      finished_at: null,
    });
    order = applyOrderEvent(order, event("ORDER_CLAIMED", {}, "assault_8"));
    expect(() => applyOrderEvent(order, event("ORDER_REISSUED", { attempt: 2 }))).toThrow(
      /a reissue needs an attempt above the current attempt 2/,
    );
  });

  it("keeps one artifact pointer per path with the latest write last", () => {
    let order = replay(["ORDER_STARTED"]);
    for (const [path, type] of [
      ["outputs/a.txt", "text/plain"],
      ["outputs/b.json", undefined],
      ["outputs/a.txt", "text/markdown"],
    ] as const)
      order = applyOrderEvent(order, event("ARTIFACT_WRITTEN", type ? { path, type } : { path }));
    expect(order.artifacts).toEqual([
      { path: "outputs/b.json" },
      { path: "outputs/a.txt", type: "text/markdown" },
    ]);
  });

  it("follows the worktree from creation to removal and refuses steps out of order", () => {
    let order = replay([]);
    expect(() => applyOrderEvent(order, event("WORKTREE_READY"))).toThrow(/its worktree is not created/);
    order = applyOrderEvent(order, event("WORKTREE_CREATED", PAYLOADS.WORKTREE_CREATED));
    expect(order).toMatchObject({ worktree_state: "CREATED", worktree_path: "/w/o1", branch: "order_o1" });
    order = applyOrderEvent(order, event("WORKTREE_READY"));
    order = applyOrderEvent(order, event("WORKTREE_ARCHIVED"));
    expect(() => applyOrderEvent(order, event("WORKTREE_READY"))).toThrow(/its worktree is ARCHIVED/);
    order = applyOrderEvent(order, event("WORKTREE_REMOVED"));
    expect(order.worktree_state).toBe("REMOVED");
  });

  it("integrates only a completed order, in order, and keeps the commit SHA", () => {
    const running = replay(["ORDER_STARTED"]);
    expect(() => applyOrderEvent(running, event("INTEGRATION_READY"))).toThrow(/only a COMPLETED order/);
    let order = replay(["ORDER_STARTED", "ORDER_COMPLETED"]);
    expect(() => applyOrderEvent(order, event("INTEGRATED", PAYLOADS.INTEGRATED))).toThrow(/not started/);
    order = applyOrderEvent(order, event("INTEGRATION_STARTED"));
    order = applyOrderEvent(order, event("INTEGRATION_FAILED"));
    order = applyOrderEvent(order, event("INTEGRATION_STARTED"));
    order = applyOrderEvent(order, event("INTEGRATION_PASSED"));
    order = applyOrderEvent(order, event("INTEGRATED", PAYLOADS.INTEGRATED));
    expect(order).toMatchObject({ integration_state: "INTEGRATED", commit_sha: "abcdef1" });
  });

  it("accepts observations about an order in any state, even after cancellation", () => {
    const order = replay(["ORDER_CANCELLED"]);
    const next = applyOrderEvent(order, event("ESCALATION_RAISED", { severity: "LOW" }));
    expect(next).toMatchObject({ status: "CANCELLED", version: order.version + 1 });
  });

  it("counts every event that names the order as one version", () => {
    const order = replay(["ORDER_ENQUEUED", "ORDER_CLAIMED", "ORDER_STARTED"]);
    expect(order.version).toBe(4);
    expect(order.position).toBe(position);
  });
});
