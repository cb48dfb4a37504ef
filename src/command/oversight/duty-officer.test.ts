import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { aarOf, OversightFixture } from "../../../test/support/oversight-fixture.js";
import type { ServiceProbe } from "./oversight-options.js";

let fx: OversightFixture;
beforeEach(async () => {
  fx = await OversightFixture.create();
});
afterEach(async () => {
  await fx.close();
});

const PERIOD_MS = 30_000;

describe("the duty officer", () => {
  it("finds a stalled order on its timer, reissues it once within its retry cap and queues the next attempt", async () => {
    const { dutyOfficer } = await fx.oversight();
    await fx.startedOrder("o1");
    dutyOfficer.start(PERIOD_MS);
    let ticks = 0;
    while ((await fx.store.getOrder("o1"))?.status === "RUNNING" && ticks < 20) {
      fx.clock.advance(PERIOD_MS);
      await dutyOfficer.idle();
      ticks += 1;
    }
    // The stall threshold is 120 s (longer than the order's 60 s budget): the first tick past it reissues.
    expect(ticks).toBe(5);
    const order = await fx.store.getOrder("o1");
    expect([order?.status, order?.attempt]).toEqual(["QUEUED", 2]);
    expect(await fx.types("o1")).toEqual([
      ...["ORDER_CREATED", "ORDER_ENQUEUED", "WORKTREE_CREATED", "ORDER_STARTED"],
      ...["RECOVERY_REQUIRED", "RECOVERY_STARTED", "ORDER_REISSUED", "ORDER_ENQUEUED", "RECOVERY_COMPLETED"],
    ]);
    expect(await fx.queue.counts()).toEqual({ waiting: 1, held: 0, done: 0 });
    const claimed = await fx.queue.claim("w1", 60_000);
    expect([claimed?.job.order_id, claimed?.job.attempt]).toEqual(["o1", 2]);
    const ticksSeen = await fx.store.read({ types: ["PATROL_TICK"] });
    expect(ticksSeen).toHaveLength(5);

    // Later ticks over the queued order change nothing.
    fx.clock.advance(PERIOD_MS);
    await dutyOfficer.idle();
    expect((await fx.store.read({ orderId: "o1" })).length).toBe(9);
    await dutyOfficer.stop();
    expect(fx.clock.pendingTimers()).toBe(0);
  });

  it("escalates instead of reissuing once the retry cap is spent", async () => {
    const { dutyOfficer } = await fx.oversight();
    await fx.startedOrder("o1");
    fx.clock.advance(121_000);
    expect((await dutyOfficer.tick()).reissued_order_ids).toEqual(["o1"]);
    await fx.append("o1", "ORDER_STARTED", { attempt: 2 });
    fx.clock.advance(121_000);
    const tick = await dutyOfficer.tick();
    expect(tick.reissued_order_ids).toEqual([]);
    const [escalation] = await fx.store.read({ orderId: "o1", types: ["ESCALATION_RAISED"] });
    expect(escalation?.payload).toMatchObject({
      severity: "HIGH",
      route: "owner",
      check: "stalled_order",
      attempt: 2,
    });
    expect((await fx.store.getOrder("o1"))?.status).toBe("RUNNING");
  });

  it("never reissues a completed order, however old", async () => {
    const { dutyOfficer } = await fx.oversight();
    await fx.completedOrder("o1", { "notes.md": "n\n", "aar.json": aarOf("o1", ["notes.md"]) });
    fx.clock.advance(3_600_000);
    const first = await dutyOfficer.tick();
    fx.clock.advance(3_600_000);
    const second = await dutyOfficer.tick();
    expect([first.reissued_order_ids, second.reissued_order_ids]).toEqual([[], []]);
    const types = await fx.types("o1");
    expect(types).not.toContain("ORDER_REISSUED");
    expect(types.filter((t) => t === "INTEGRATION_READY")).toHaveLength(1);
    // The second tick stored only its own PATROL_TICK.
    expect(second.events_emitted).toBe(1);
  });

  it("reissues a stalled order once when two duty officers tick at the same moment", async () => {
    const one = await fx.oversight();
    const two = await fx.oversight({}, true);
    await fx.startedOrder("o1");
    fx.clock.advance(121_000);
    const [a, b] = await Promise.all([one.dutyOfficer.tick(), two.dutyOfficer.tick()]);
    expect([...a.reissued_order_ids, ...b.reissued_order_ids]).toEqual(["o1"]);
    const reissued = await fx.store.read({ orderId: "o1", types: ["ORDER_REISSUED"] });
    expect(reissued.map((e) => e.payload.attempt)).toEqual([2]);
    const types = await fx.types("o1");
    expect(types.filter((t) => t === "RECOVERY_REQUIRED")).toHaveLength(1);
    expect(types.filter((t) => t === "RECOVERY_COMPLETED")).toHaveLength(1);
    expect((await fx.queue.counts()).waiting).toBe(1);
  });

  it("finishes a recovery cut short between the reissue and the enqueue", async () => {
    const { dutyOfficer } = await fx.oversight();
    await fx.startedOrder("o1");
    // What a duty officer that died after its first batch leaves: the order reissued, no job, no completion.
    await fx.store.appendBatch([
      {
        ...fx.ids("o1"),
        event_id: "recovery.o1.1.started",
        type: "RECOVERY_STARTED",
        payload: { attempt: 1, reason: "x" },
      },
      { ...fx.ids("o1"), type: "ORDER_REISSUED", payload: { attempt: 2, reason: "x" } },
    ]);
    await dutyOfficer.tick();
    await dutyOfficer.tick();
    expect((await fx.types("o1")).slice(-2)).toEqual(["ORDER_ENQUEUED", "RECOVERY_COMPLETED"]);
    expect(await fx.queue.counts()).toEqual({ waiting: 1, held: 0, done: 0 });
  });

  it("records a failing service once when it degrades and once when it recovers", async () => {
    let failure: string | undefined;
    const model: ServiceProbe = {
      name: "provider:local",
      check: async () => {
        if (failure) throw new Error(failure);
      },
    };
    const { dutyOfficer } = await fx.oversight({ probes: [model] });
    const health = async () =>
      (await fx.store.read({ types: ["SERVICE_DEGRADED", "SERVICE_RECOVERED"] })).map((e) => [
        e.type,
        e.payload.service,
      ]);
    await dutyOfficer.tick();
    expect(await health()).toEqual([]);
    failure = "connect ECONNREFUSED 127.0.0.1:9";
    await dutyOfficer.tick();
    await dutyOfficer.tick();
    // Another duty officer, started while the service is down, reads the state from the ledger.
    const other = await fx.oversight({ probes: [model] }, true);
    await other.dutyOfficer.tick();
    expect(await health()).toEqual([["SERVICE_DEGRADED", "provider:local"]]);
    failure = undefined;
    await dutyOfficer.tick();
    await other.dutyOfficer.tick();
    await dutyOfficer.tick();
    expect(await health()).toEqual([
      ["SERVICE_DEGRADED", "provider:local"],
      ["SERVICE_RECOVERED", "provider:local"],
    ]);
    const [degraded] = await fx.store.read({ types: ["SERVICE_DEGRADED"] });
    expect(degraded?.payload.reason).toBe("connect ECONNREFUSED 127.0.0.1:9");
  });

  it("reports the disk degraded when less than the configured space is free", async () => {
    const { dutyOfficer } = await fx.oversight({ minFreeDiskBytes: Number.MAX_SAFE_INTEGER });
    const tick = await dutyOfficer.tick();
    expect(tick.events_emitted).toBe(2);
    const [degraded] = await fx.store.read({ types: ["SERVICE_DEGRADED"] });
    expect(degraded?.payload).toMatchObject({ service: "disk" });
    expect(String(degraded?.payload.reason)).toMatch(/MiB free under .* below the \d+ MiB required/);
  });
});
