import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CorruptRowError, type EventStore, IllegalTransitionError } from "../../src/ledger/index.js";
import { ev, orderCreated, runCreated } from "./events.js";
import { type LedgerUnderTest, stores } from "./stores.js";

/**
 * Two connections to one ledger, each appending in turn. A store may plan an append from what it wrote itself
 * (the PostgreSQL store does, in one round trip); whatever the other connection stored in between must still
 * decide positions, duplicates and transitions.
 */
describe.each(stores)("$name ledger: two connections appending in turn", (kind) => {
  let ledger: LedgerUnderTest;
  let a: EventStore;
  let b: EventStore;
  beforeEach(async () => {
    ledger = await kind.open();
    a = ledger.store;
    b = await ledger.connect();
  });
  afterEach(async () => {
    await ledger.close();
  });

  it("keeps one gapless order of positions and one run snapshot across both", async () => {
    await a.appendBatch([runCreated("r1"), orderCreated("r1", "o1")]);
    await b.append(orderCreated("r1", "o2"));
    await a.append(orderCreated("r1", "o3"));
    await a.append(ev("ORDER_ENQUEUED", "r1", "o1"));
    await b.append(ev("ORDER_ENQUEUED", "r1", "o2"));
    expect((await a.read()).map((e) => e.position)).toEqual([1, 2, 3, 4, 5, 6]);
    const run = await b.getRun("r1");
    expect(run?.version).toBe(6);
    expect(run?.orders.map((o) => o.order_id)).toEqual(["o1", "o2", "o3"]);
    const stored = await a.dumpSnapshots();
    await a.rebuild();
    expect(await a.dumpSnapshots()).toEqual(stored);
  });

  it("refuses a transition the other connection made illegal since this one last appended", async () => {
    await a.appendBatch([runCreated("r1"), orderCreated("r1", "o1")]);
    await b.append(ev("ORDER_CANCELLED", "r1", "o1"));
    const error = await a.append(ev("ORDER_CLAIMED", "r1", "o1")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IllegalTransitionError);
    expect((error as IllegalTransitionError).subject).toEqual({
      entity: "order",
      id: "o1",
      state: "CANCELLED",
    });
    expect(await a.head()).toBe(3);
  });

  it("answers an event the other connection stored as a duplicate, at its position", async () => {
    await a.append(runCreated("r1"));
    const tick = { ...ev("PATROL_TICK", null), event_id: "tick-1", ts: "2026-01-14T16:21:00Z" };
    const first = await b.append(tick);
    await a.append(ev("PATROL_TICK", null));
    expect(await a.append(tick)).toEqual({ ...first, duplicate: true });
    expect(await b.append(tick)).toEqual({ ...first, duplicate: true });
    expect(await a.head()).toBe(3);
  });

  it("refuses creating a run the other connection created, though this one never saw it", async () => {
    await b.append(runCreated("r1"));
    await a.append(runCreated("r2"));
    const error = await a.append(runCreated("r1")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IllegalTransitionError);
    expect((error as IllegalTransitionError).subject).toEqual({ entity: "run", id: "r1", state: "OPEN" });
    expect(await b.head()).toBe(2);
  });

  it.runIf(kind.name === "postgres")(
    "plans from its own copy after its own append, so a snapshot damaged since in the table is written right again",
    async () => {
      // The probe: a damaged snapshot fails any append that reads it (the other connection shows that); the
      // connection that appended last does not read it, and its next append stores a good snapshot over it.
      await a.appendBatch([runCreated("r1"), orderCreated("r1", "o1")]);
      const raw = await ledger.raw();
      await raw.exec(`UPDATE run_snapshots SET snapshot = '{"run_id":"r1"}' WHERE run_id = 'r1'`);
      await raw.close();
      await expect(b.append(ev("ORDER_ENQUEUED", "r1", "o1"))).rejects.toBeInstanceOf(CorruptRowError);
      expect((await a.append(ev("ORDER_ENQUEUED", "r1", "o1"))).position).toBe(3);
      expect((await b.getRun("r1"))?.version).toBe(3);
    },
  );
});
