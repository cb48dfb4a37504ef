import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { OversightFixture } from "../../../test/support/oversight-fixture.js";
import { ActiveOrders } from "./active-orders.js";
import { Sentinel, type SentinelOptions } from "./sentinel.js";

let fx: OversightFixture;
beforeEach(async () => {
  fx = await OversightFixture.create();
});
afterEach(async () => {
  await fx.close();
});

const PATROL_MS = 30_000;
const AUDIT_MS = 60_000;
const STEP_MS = 5_000;

function sentinel(options: Partial<SentinelOptions> = {}): Sentinel {
  return new Sentinel({
    clock: fx.clock,
    store: fx.store,
    orders: new ActiveOrders(fx.store),
    garrisonId: "local",
    patrolMs: PATROL_MS,
    stallAfterMs: 120_000,
    ...options,
  });
}

const incidents = async () =>
  (await fx.store.read({ types: ["ESCALATION_RAISED", "RECOVERY_STARTED", "RECOVERY_COMPLETED"] }))
    .filter((e) => e.payload.subject === "duty_officer")
    .map((e) => [e.type, e.payload.severity ?? null, e.payload.check ?? null]);

describe("the sentinel", () => {
  it("raises CRITICAL within two audit periods of the duty officer's death and restarts it, in the ledger", async () => {
    const { dutyOfficer, sentinel: watch } = await fx.oversight({ patrolMs: PATROL_MS });
    watch.start(AUDIT_MS);
    const run = async (ms: number, until?: () => Promise<boolean>) => {
      for (let spent = 0; spent < ms; spent += STEP_MS) {
        fx.clock.advance(STEP_MS);
        await dutyOfficer.idle();
        await watch.idle();
        if (await until?.()) return spent + STEP_MS;
      }
      return ms;
    };
    // Alive: four minutes of ticks and audits raise nothing.
    await run(240_000);
    expect(await incidents()).toEqual([]);
    expect((await watch.audit()).verdict).toBe("healthy");

    await dutyOfficer.stop();
    const escalated = async () => (await incidents()).length > 0;
    const latency = await run(4 * AUDIT_MS, escalated);
    expect(latency).toBeLessThanOrEqual(2 * AUDIT_MS);
    const [raised] = await fx.store.read({ types: ["ESCALATION_RAISED"] });
    expect(raised?.event_id).toMatch(/^sentinel\..+\.dead\./);
    expect(raised?.payload).toMatchObject({ severity: "CRITICAL", check: "duty_officer_dead" });

    // The restart ticked at once; the next audit sees that tick and records the recovery complete.
    await dutyOfficer.idle();
    await run(AUDIT_MS);
    expect(await incidents()).toEqual([
      ["ESCALATION_RAISED", "CRITICAL", "duty_officer_dead"],
      ["RECOVERY_STARTED", null, null],
      ["RECOVERY_COMPLETED", null, null],
    ]);
    // Alive again on its own timer: more ticks, no further incident.
    const ticks = (await fx.store.read({ types: ["PATROL_TICK"] })).length;
    await run(4 * AUDIT_MS);
    expect((await fx.store.read({ types: ["PATROL_TICK"] })).length).toBeGreaterThanOrEqual(ticks + 7);
    expect(await incidents()).toHaveLength(3);
    await watch.stop();
    await dutyOfficer.stop();
    expect(fx.clock.pendingTimers()).toBe(0);
  });

  it("raises one escalation per incident, however many audits and sentinels see it", async () => {
    const one = sentinel({ dutyOfficerId: "gone" });
    const two = sentinel({ dutyOfficerId: "gone" });
    fx.clock.advance(2 * PATROL_MS + 1);
    const audits = [await one.audit(), await two.audit(), await one.audit()];
    expect(audits.map((a) => [a.verdict, a.escalated, a.last_patrol_at])).toEqual([
      ["dead", true, null],
      ["dead", false, null],
      ["dead", false, null],
    ]);
    expect(await incidents()).toEqual([["ESCALATION_RAISED", "CRITICAL", "duty_officer_dead"]]);

    // It ticks once more, then falls silent again: a new incident.
    await fx.store.append({
      ...fx.ids(null),
      ts: new Date(fx.clock.now()).toISOString(),
      type: "PATROL_TICK",
      payload: { duty_officer: "gone" },
    });
    expect((await one.audit()).verdict).toBe("healthy");
    fx.clock.advance(2 * PATROL_MS + 1);
    expect((await two.audit()).escalated).toBe(true);
    expect(await incidents()).toHaveLength(2);
  });

  it("finds a duty officer that ticks while overdue orders pile up ineffective, and restarts it once", async () => {
    const restarts: number[] = [];
    const watch = sentinel({
      dutyOfficerId: "idle-do",
      restartDutyOfficer: async () => void restarts.push(fx.clock.now()),
    });
    const audits = [];
    for (const orderId of ["o0", "o1", "o2", "o3"]) {
      await fx.startedOrder(orderId);
      fx.clock.advance(121_000);
      // A duty officer alive on the ledger that reissues nothing.
      await fx.append(orderId, "PATROL_TICK", { duty_officer: "idle-do" });
      audits.push(await watch.audit());
    }
    expect(audits.map((a) => [a.backlog, a.backlog_trend, a.verdict, a.escalated])).toEqual([
      [1, "steady", "healthy", false],
      [2, "rising", "healthy", false],
      [3, "rising", "ineffective", true],
      [4, "rising", "ineffective", false],
    ]);
    const [raised] = await fx.store.read({ types: ["ESCALATION_RAISED"] });
    expect(raised?.event_id).toBe("sentinel.idle-do.ineffective.o0.1");
    expect(raised?.payload).toMatchObject({ severity: "CRITICAL", check: "duty_officer_ineffective" });
    expect(restarts).toHaveLength(1);
    // The tick before the fourth audit came after the restart: the recovery is complete.
    expect((await incidents()).map(([type]) => type)).toEqual([
      "ESCALATION_RAISED",
      "RECOVERY_STARTED",
      "RECOVERY_COMPLETED",
    ]);
  });

  it("does not count orders whose retries are spent, nor judge a duty officer without a timer dead", async () => {
    const watch = sentinel({ patrolMs: 0 });
    await fx.startedOrder("o1");
    await fx.append("o1", "ORDER_REISSUED", { attempt: 2 });
    await fx.append("o1", "ORDER_STARTED", { attempt: 2 });
    fx.clock.advance(3_600_000);
    expect(await watch.audit()).toMatchObject({ backlog: 0, verdict: "healthy", escalated: false });
  });
});
