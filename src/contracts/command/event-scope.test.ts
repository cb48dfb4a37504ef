import { describe, expect, it } from "vitest";
import { checkEventScope, eventScopeOf } from "./event-scope.js";
import { LEDGER_EVENT_TYPES, type LedgerEventType } from "./event-types.js";

const ids = { theater_id: "demo", run_id: "run_1", order_id: "order_1", unit_id: "assault_1" };
const fields = (type: LedgerEventType, over: Partial<typeof ids> | Record<string, null> = {}) =>
  checkEventScope({ type, ...ids, ...over }).map((p) => p.field);

describe("eventScopeOf", () => {
  it("files every event type in exactly the family the seed's sections imply", () => {
    const of = (scope: string) => LEDGER_EVENT_TYPES.filter((t) => eventScopeOf(t) === scope);
    const byScope = { run: of("run"), system: of("system"), incident: of("incident"), order: of("order") };
    expect(byScope.run).toEqual([
      "RUN_CREATED",
      "RUN_UPDATED",
      "RUN_COMPLETED",
      "RUN_FAILED",
      "RUN_CANCELLED",
    ]);
    expect(byScope.system).toEqual([
      "PATROL_TICK",
      "SERVICE_DEGRADED",
      "SERVICE_RECOVERED",
      "POLICY_UPDATED",
    ]);
    expect(byScope.incident).toHaveLength(5);
    expect(byScope.order).toHaveLength(LEDGER_EVENT_TYPES.length - 14);
    expect(byScope.order).toContain("INTEGRATED");
    expect(byScope.order).toContain("WORKTREE_REMOVED");
    expect(byScope.order).toContain("AAR_WRITTEN");
  });
});

describe("checkEventScope", () => {
  it("accepts an event that carries every id", () => {
    for (const type of LEDGER_EVENT_TYPES) expect(fields(type)).toEqual([]);
  });

  it("requires order, run and theater for order events", () => {
    expect(fields("ARTIFACT_WRITTEN", { order_id: null })).toEqual(["order_id"]);
    expect(fields("INTEGRATION_PASSED", { run_id: null })).toEqual(["run_id"]);
    expect(fields("WORKTREE_READY", { theater_id: null })).toEqual(["theater_id"]);
  });

  it("lets run events go without an order but not without a run", () => {
    expect(fields("RUN_COMPLETED", { order_id: null, unit_id: null })).toEqual([]);
    expect(fields("RUN_FAILED", { order_id: null, run_id: null })).toEqual(["run_id"]);
  });

  it("lets any event go without a unit, as the seed's base event does (unit_id: null)", () => {
    expect(fields("ORDER_CLAIMED", { unit_id: null })).toEqual([]);
    expect(fields("ORDER_STARTED", { unit_id: null })).toEqual([]);
    expect(fields("ORDER_CREATED", { unit_id: null })).toEqual([]);
  });

  it("lets system and incident events stand without theater, run or order", () => {
    const none = { theater_id: null, run_id: null, order_id: null, unit_id: null };
    expect(fields("PATROL_TICK", none)).toEqual([]);
    expect(fields("ESCALATION_RAISED", none)).toEqual([]);
  });

  it("keeps ids nested for events whose ids are optional", () => {
    expect(fields("RECOVERY_STARTED", { run_id: null })).toEqual(["run_id"]);
    expect(fields("SERVICE_DEGRADED", { theater_id: null, order_id: null })).toEqual(["theater_id"]);
  });
});
