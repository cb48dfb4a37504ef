import { describe, expect, it } from "vitest";
import type { LedgerEventType } from "../contracts/index.js";
import type { RecordedEvent } from "./event-store.js";
import { applyRunEvent } from "./run-projection.js";
import type { OrderSnapshot, RunSnapshot } from "./snapshot.js";

let position = 0;
function event(
  type: LedgerEventType,
  payload: Record<string, unknown> = {},
  orderId: string | null = null,
): RecordedEvent {
  position++;
  return {
    position,
    event_id: `e${position}`,
    ts: `2026-01-14T16:${String(position % 60).padStart(2, "0")}:00Z`,
    type,
    garrison_id: "local",
    theater_id: "demo",
    run_id: "r1",
    order_id: orderId,
    unit_id: null,
    payload,
  };
}

function created(objective?: string): RunSnapshot {
  return applyRunEvent(undefined, event("RUN_CREATED", objective === undefined ? {} : { objective }));
}

describe("run state machine", () => {
  it("opens a run with its objective and theater", () => {
    const run = created("Summarize");
    expect(run).toMatchObject({ run_id: "r1", theater_id: "demo", status: "OPEN", objective: "Summarize" });
    expect(created().objective).toBeNull();
  });

  it.each([
    ["RUN_COMPLETED", "COMPLETE"],
    ["RUN_FAILED", "FAILED"],
    ["RUN_CANCELLED", "CANCELLED"],
  ] as const)("finishes an open run with %s as %s, once", (type, status) => {
    const done = event(type, { summary: "All done" });
    const run = applyRunEvent(created(), done);
    expect(run).toMatchObject({ status, finished_at: done.ts, summary: "All done" });
    expect(() => applyRunEvent(run, event("RUN_FAILED"))).toThrow(
      new RegExp(`^run r1 is ${status}: RUN_FAILED .* only an OPEN run can finish|a cancelled run`),
    );
  });

  it("takes objective and summary changes from RUN_UPDATED, also after completion but not after cancellation", () => {
    let run = applyRunEvent(
      created("First"),
      event("RUN_UPDATED", { objective: "Second", policy_version: 2 }),
    );
    expect(run.objective).toBe("Second");
    run = applyRunEvent(run, event("RUN_COMPLETED"));
    run = applyRunEvent(run, event("RUN_UPDATED", { summary: "Synthesized later" }));
    expect(run).toMatchObject({ status: "COMPLETE", objective: "Second", summary: "Synthesized later" });
    const cancelled = applyRunEvent(created(), event("RUN_CANCELLED"));
    expect(() => applyRunEvent(cancelled, event("RUN_UPDATED"))).toThrow(/run r1 is CANCELLED: RUN_UPDATED/);
  });

  it("takes new orders only while open", () => {
    const run = applyRunEvent(created(), event("ORDER_CREATED", {}, "o1"));
    expect(run.version).toBe(2);
    const failed = applyRunEvent(run, event("RUN_FAILED"));
    expect(() => applyRunEvent(failed, event("ORDER_CREATED", {}, "o2"))).toThrow(
      /a finished run takes no new orders/,
    );
  });

  it("lets a cancelled run wind its orders down and hear observations, but nothing else", () => {
    const run = applyRunEvent(created(), event("RUN_CANCELLED"));
    for (const type of ["ORDER_CANCELLED", "ORDER_FAILED", "WORKTREE_REMOVED", "ESCALATION_RAISED"] as const)
      expect(applyRunEvent(run, event(type, {}, "o1")).status).toBe("CANCELLED");
    for (const type of ["ORDER_STARTED", "ARTIFACT_WRITTEN", "INTEGRATED"] as const)
      expect(() => applyRunEvent(run, event(type, {}, "o1"))).toThrow(
        /a cancelled run only winds its orders down/,
      );
  });

  it("refuses a run that was never created, a second creation and a foreign theater", () => {
    expect(() => applyRunEvent(undefined, event("RUN_UPDATED"))).toThrow(/^run r1 is absent: RUN_UPDATED/);
    expect(() => applyRunEvent(created(), event("RUN_CREATED"))).toThrow(/already exists/);
    const foreign = { ...event("RUN_UPDATED"), theater_id: "elsewhere" };
    expect(() => applyRunEvent(created(), foreign)).toThrow(/belongs to theater demo, not elsewhere/);
  });
});

describe("a run's order list", () => {
  const order = (id: string, status: OrderSnapshot["status"]) => ({ order_id: id, status });

  it("appends new orders in creation order and updates their status in place", () => {
    let run = created();
    run = applyRunEvent(run, event("ORDER_CREATED", {}, "o1"), order("o1", "QUEUED"));
    run = applyRunEvent(run, event("ORDER_CREATED", {}, "o2"), order("o2", "QUEUED"));
    run = applyRunEvent(run, event("ORDER_STARTED", { attempt: 1 }, "o1"), order("o1", "RUNNING"));
    expect(run.orders).toEqual([
      { order_id: "o1", status: "RUNNING" },
      { order_id: "o2", status: "QUEUED" },
    ]);
  });

  it("keeps the same list when an order's status did not change, and never changes its input", () => {
    const run = applyRunEvent(created(), event("ORDER_CREATED", {}, "o1"), order("o1", "QUEUED"));
    const frozen = structuredClone(run);
    const next = applyRunEvent(run, event("ARTIFACT_WRITTEN", {}, "o1"), order("o1", "QUEUED"));
    expect(next.orders).toBe(run.orders);
    applyRunEvent(run, event("ORDER_CLAIMED", {}, "o1"), order("o1", "CLAIMED"));
    expect(run).toEqual(frozen);
  });
});
