import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { isUlid, ValidationError } from "../../src/core/index.js";
import {
  EventIdConflictError,
  IllegalTransitionError,
  orderSnapshotSchema,
  runSnapshotSchema,
  StreamVersionConflictError,
} from "../../src/ledger/index.js";
import { ev, fullLifecycle, orderCreated, runCreated, workerBatch } from "./events.js";
import { type LedgerUnderTest, stores } from "./stores.js";

describe.each(stores)("$name ledger: appends and reads", (kind) => {
  let ledger: LedgerUnderTest;
  beforeEach(async () => {
    ledger = await kind.open();
  });
  afterEach(async () => {
    await ledger.close();
  });

  it("gives each event the next global position, across single appends and batches", async () => {
    const { store } = ledger;
    expect(await store.head()).toBe(0);
    expect((await store.append(runCreated("r1"))).position).toBe(1);
    const batch = await store.appendBatch([orderCreated("r1", "o1"), orderCreated("r1", "o2")]);
    expect(batch.map((r) => r.position)).toEqual([2, 3]);
    expect((await store.append(ev("PATROL_TICK", null))).position).toBe(4);
    expect(await store.head()).toBe(4);
    expect((await store.read()).map((e) => e.position)).toEqual([1, 2, 3, 4]);
  });

  it("fills event_id with a ULID and ts with the current UTC time when they are omitted", async () => {
    const before = Date.now();
    const result = await ledger.store.append(runCreated("r1"));
    expect(isUlid(result.event_id)).toBe(true);
    expect(result.ts).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
    expect(Date.parse(result.ts)).toBeGreaterThanOrEqual(before - 1000);
    const [stored] = await ledger.store.read();
    expect(stored).toMatchObject({ event_id: result.event_id, ts: result.ts, order_id: null, unit_id: null });
  });

  it("keeps a writer's own event_id and ts", async () => {
    const input = { ...runCreated("r1"), event_id: "evt-1", ts: "2026-01-14T16:21:00Z" };
    expect(await ledger.store.append(input)).toEqual({
      event_id: "evt-1",
      ts: "2026-01-14T16:21:00Z",
      duplicate: false,
      position: 1,
    });
  });

  it("stores the seed's typo spellings under their canonical names", async () => {
    const { store } = ledger;
    await store.appendBatch([runCreated("r1"), orderCreated("r1", "o1")]);
    await store.append(ev("ORDER CLAIMED", "r1", "o1"));
    await store.append(ev("WORKTREE_CREATED", "r1", "o1", { worktree_path: "/w/o1", branch: "order_o1" }));
    await store.append(ev("WORKTREE_Removed", "r1", "o1"));
    const types = (await store.read({ after: 2 })).map((e) => e.type);
    expect(types).toEqual(["ORDER_CLAIMED", "WORKTREE_CREATED", "WORKTREE_REMOVED"]);
    expect((await store.read({ types: ["ORDER_CLAIMED"] })).length).toBe(1);
  });

  it("refuses an invalid event with the path of each bad field", async () => {
    const bad = { ...ev("ORDER_STARTED", "r1", "o1", { attempt: 0 }), garrison_id: "" };
    const error = await ledger.store.append(bad).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    const paths = (error as ValidationError).issues.map((i) => i.path);
    expect(paths).toEqual(expect.arrayContaining(["$.garrison_id", "$.payload.attempt"]));
  });

  it("refuses an invalid event in a batch with its index in the path, storing nothing", async () => {
    const batch = [runCreated("r1"), { ...orderCreated("r1", "o1"), order_id: undefined }];
    const error = await ledger.store.appendBatch(batch).catch((e: unknown) => e);
    expect((error as ValidationError).issues.map((i) => i.path)).toEqual(["$[1].order_id"]);
    expect(await ledger.store.head()).toBe(0);
  });

  it("refuses ids with control characters, which PostgreSQL could not store", async () => {
    const error = await ledger.store.append(runCreated("r\u00001")).catch((e: unknown) => e);
    expect((error as ValidationError).issues[0]?.path).toBe("$.run_id");
  });

  it("reads by run, by order, by type and from a position, in position order", async () => {
    const { store } = ledger;
    await store.appendBatch(fullLifecycle("r1", "o1"));
    await store.appendBatch([runCreated("r2"), orderCreated("r2", "o2"), ev("PATROL_TICK", null)]);
    const all = await store.read();
    expect(all).toHaveLength(19);
    expect((await store.read({ runId: "r2" })).map((e) => e.type)).toEqual(["RUN_CREATED", "ORDER_CREATED"]);
    const o1 = await store.read({ orderId: "o1" });
    expect(o1.every((e) => e.order_id === "o1")).toBe(true);
    expect(o1).toHaveLength(14);
    const created = await store.read({ types: ["RUN_CREATED", "ORDER_CREATED"] });
    expect(created.map((e) => e.position)).toEqual([1, 2, 17, 18]);
    expect((await store.read({ after: 15, limit: 2 })).map((e) => e.position)).toEqual([16, 17]);
    expect((await store.read({ after: 15, through: 16 })).map((e) => e.position)).toEqual([16]);
    expect(all[6]).toEqual({
      position: 7,
      event_id: all[6]?.event_id,
      ts: all[6]?.ts,
      type: "ORDER_STARTED",
      garrison_id: "local",
      theater_id: "demo",
      run_id: "r1",
      order_id: "o1",
      unit_id: "assault_1",
      payload: { attempt: 1 },
    });
  });

  it("reads a type across thousands of events: only its events, in order, from any position, up to the limit", async () => {
    const { store } = ledger;
    // Rare RUN_CREATED events among many orders span several of the SQLite store's type blocks (1,024).
    const expected: number[] = [];
    for (let r = 0; r < 5; r++) {
      const run = `r${r}`;
      const batch = [runCreated(run)];
      for (let o = 0; o < 150; o++)
        batch.push(orderCreated(run, `${run}-o${o}`), ev("ORDER_ENQUEUED", run, `${run}-o${o}`));
      const results = await store.appendBatch(batch);
      expected.push(results[0]?.position ?? -1);
    }
    await store.append(ev("PATROL_TICK", null));
    const read = async (query: Parameters<typeof store.read>[0]) =>
      (await store.read(query)).map((e) => e.position);
    expect(await read({ types: ["RUN_CREATED"] })).toEqual(expected);
    expect(await read({ types: ["RUN_CREATED"], after: expected[2] })).toEqual(expected.slice(3));
    expect(await read({ types: ["RUN_CREATED"], after: 1, limit: 2 })).toEqual(expected.slice(1, 3));
    expect(await read({ types: ["RUN_CREATED"], through: expected[3] })).toEqual(expected.slice(0, 4));
    expect(await read({ types: ["PATROL_TICK", "RUN_CREATED"], after: expected[4] })).toEqual([1506]);
    // The control: the same events picked out of an unfiltered read.
    const all = await store.read({ limit: 5000 });
    expect(all).toHaveLength(1506);
    const enqueued = await store.read({ types: ["ORDER_ENQUEUED"], after: 1000, limit: 300 });
    expect(enqueued).toEqual(
      all.filter((e) => e.type === "ORDER_ENQUEUED" && e.position > 1000).slice(0, 300),
    );
    expect(enqueued.every((e) => e.type === "ORDER_ENQUEUED")).toBe(true);
  });

  it("keeps payloads as written, including strings JSON allows anywhere", async () => {
    const payload = { note: "nul \u0000 and emoji 😀", nested: { list: [1, 2.5, null, true] } };
    await ledger.store.append({ ...ev("PATROL_TICK", null), payload });
    expect((await ledger.store.read())[0]?.payload).toEqual(payload);
  });
});

describe.each(stores)("$name ledger: idempotency", (kind) => {
  let ledger: LedgerUnderTest;
  beforeEach(async () => {
    ledger = await kind.open();
  });
  afterEach(async () => {
    await ledger.close();
  });

  it("stores a duplicate event_id once and answers with the original position", async () => {
    const { store } = ledger;
    const event = { ...runCreated("r1"), event_id: "evt-run" };
    const first = await store.append(event);
    await store.append(ev("PATROL_TICK", null));
    const again = await store.append({ ...event, payload: { objective: "Summarize the input" } });
    expect(again).toEqual({ ...first, duplicate: true });
    expect(await store.head()).toBe(2);
    expect((await store.getRun("r1"))?.version).toBe(1);
  });

  it("matches a retry without ts to the first copy, whose ts the ledger chose", async () => {
    const event = { ...ev("PATROL_TICK", null), event_id: "tick-1" };
    const first = await ledger.store.append(event);
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(await ledger.store.append(event)).toEqual({ ...first, duplicate: true });
  });

  it("compares bodies canonically: key order and the typo spelling do not make a different event", async () => {
    const { store } = ledger;
    await store.appendBatch([runCreated("r1"), orderCreated("r1", "o1")]);
    const claim = { ...ev("ORDER_CLAIMED", "r1", "o1", { a: 1, b: 2 }), event_id: "claim-1" };
    const first = await store.append(claim);
    const retry = { ...claim, type: "ORDER CLAIMED" as const, payload: { b: 2, a: 1.0 } };
    expect(await store.append(retry)).toEqual({ ...first, duplicate: true });
  });

  it("refuses a different body under a seen event_id, naming the event_id", async () => {
    const { store } = ledger;
    await store.append({ ...runCreated("r1"), event_id: "evt-run" });
    const error = await store
      .append({ ...runCreated("r1", "Another objective"), event_id: "evt-run" })
      .catch((e) => e);
    expect(error).toBeInstanceOf(EventIdConflictError);
    expect((error as Error).message).toContain("evt-run");
    expect((error as Error).message).toContain("position 1");
    expect(await store.head()).toBe(1);
  });

  it("stores an event_id repeated inside one batch once, and refuses a conflicting repeat", async () => {
    const { store } = ledger;
    const tick = { ...ev("PATROL_TICK", null), event_id: "t1", ts: "2026-01-14T16:21:00Z" };
    const results = await store.appendBatch([tick, ev("PATROL_TICK", null), tick]);
    expect(results.map((r) => [r.position, r.duplicate])).toEqual([
      [1, false],
      [2, false],
      [1, true],
    ]);
    const conflicting = [
      { ...tick, event_id: "t2" },
      { ...tick, event_id: "t2", payload: { other: true } },
    ];
    await expect(store.appendBatch(conflicting)).rejects.toThrow(/t2 appears twice/);
    expect(await store.head()).toBe(2);
  });

  it("stores the new events of a partly repeated batch and reports the repeats as duplicates", async () => {
    const { store } = ledger;
    const run = { ...runCreated("r1"), event_id: "e1" };
    await store.append(run);
    const results = await store.appendBatch([run, { ...orderCreated("r1", "o1"), event_id: "e2" }]);
    expect(results.map((r) => [r.event_id, r.position, r.duplicate])).toEqual([
      ["e1", 1, true],
      ["e2", 2, false],
    ]);
  });
});

describe.each(stores)("$name ledger: expected stream versions", (kind) => {
  let ledger: LedgerUnderTest;
  beforeEach(async () => {
    ledger = await kind.open();
  });
  afterEach(async () => {
    await ledger.close();
  });

  it("appends when the stream is at the expected version and refuses otherwise", async () => {
    const { store } = ledger;
    await store.append(runCreated("r1"), { expect: [{ kind: "run", id: "r1", version: 0 }] });
    await store.append(orderCreated("r1", "o1"), { expect: [{ kind: "run", id: "r1", version: 1 }] });
    expect(await store.streamVersion({ kind: "run", id: "r1" })).toBe(2);
    expect(await store.streamVersion({ kind: "order", id: "o1" })).toBe(1);

    const stale = store.append(ev("ORDER_ENQUEUED", "r1", "o1"), {
      expect: [{ kind: "order", id: "o1", version: 0 }],
    });
    await expect(stale).rejects.toThrow(StreamVersionConflictError);
    await expect(stale).rejects.toThrow("order o1 is at version 1, expected 0");
    expect(await store.head()).toBe(2);
  });

  it("lets an exact retry of a stored batch succeed although its expected version has moved on", async () => {
    const { store } = ledger;
    const batch = [
      { ...runCreated("r1"), event_id: "a" },
      { ...orderCreated("r1", "o1"), event_id: "b" },
    ];
    const expect0 = { expect: [{ kind: "run" as const, id: "r1", version: 0 }] };
    const first = await store.appendBatch(batch, expect0);
    const retry = await store.appendBatch(batch, expect0);
    expect(retry).toEqual(first.map((r) => ({ ...r, duplicate: true })));
  });
});

describe.each(stores)("$name ledger: projections", (kind) => {
  let ledger: LedgerUnderTest;
  beforeEach(async () => {
    ledger = await kind.open();
  });
  afterEach(async () => {
    await ledger.close();
  });

  it("derives run and order snapshots from the lifecycle events", async () => {
    const { store } = ledger;
    const results = await store.appendBatch(fullLifecycle("r1", "o1"));
    const ts = (i: number) => results[i]?.ts;
    const order = await store.getOrder("o1");
    expect(orderSnapshotSchema.parse(order)).toEqual({
      order_id: "o1",
      run_id: "r1",
      theater_id: "demo",
      status: "COMPLETED",
      attempt: 1,
      unit_id: "assault_1",
      worktree_path: "/srv/worktrees/o1",
      branch: "order_o1",
      worktree_state: "ARCHIVED",
      aar_path: "aar.json",
      artifacts: [{ path: "outputs/model_output.txt", type: "text/plain" }],
      integration_state: "INTEGRATED",
      commit_sha: "0123456789abcdef0123456789abcdef01234567",
      created_at: ts(1),
      started_at: ts(6),
      finished_at: ts(9),
      updated_at: ts(14),
      version: 14,
      position: 15,
    });
    const run = await store.getRun("r1");
    expect(runSnapshotSchema.parse(run)).toEqual({
      run_id: "r1",
      theater_id: "demo",
      status: "COMPLETE",
      objective: "Summarize the input",
      summary: "Five bullets written",
      orders: [{ order_id: "o1", status: "COMPLETED" }],
      created_at: ts(0),
      updated_at: ts(15),
      finished_at: ts(15),
      version: 16,
      position: 16,
    });
    expect(await store.getRun("nope")).toBeUndefined();
    expect(await store.getOrder("nope")).toBeUndefined();
  });

  it("refuses ORDER_STARTED after ORDER_COMPLETED, naming the order, its state and the event", async () => {
    const { store } = ledger;
    await store.appendBatch([runCreated("r1"), orderCreated("r1", "o1"), ...workerBatch("r1", "o1")]);
    const late = { ...ev("ORDER_STARTED", "r1", "o1", { attempt: 2 }), event_id: "late-start" };
    const error = await store.append(late).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IllegalTransitionError);
    expect((error as Error).message).toMatch(/^order o1 is COMPLETED: ORDER_STARTED \(event late-start\)/);
    expect(await store.head()).toBe(6);
    expect((await store.getOrder("o1"))?.status).toBe("COMPLETED");
  });

  it("refuses anything but cleanup after an order is cancelled", async () => {
    const { store } = ledger;
    await store.appendBatch([
      runCreated("r1"),
      orderCreated("r1", "o1"),
      ev("WORKTREE_CREATED", "r1", "o1", { worktree_path: "/w/o1", branch: "b" }),
      ev("ORDER_CANCELLED", "r1", "o1"),
    ]);
    await expect(store.append(ev("ORDER_ENQUEUED", "r1", "o1"))).rejects.toThrow(
      /order o1 is CANCELLED: ORDER_ENQUEUED/,
    );
    await expect(store.append(ev("AAR_WRITTEN", "r1", "o1", { path: "aar.json" }))).rejects.toThrow(
      IllegalTransitionError,
    );
    await store.append(ev("WORKTREE_REMOVED", "r1", "o1"));
    expect((await store.getOrder("o1"))?.worktree_state).toBe("REMOVED");
  });

  it("refuses anything but winding down after a run is cancelled", async () => {
    const { store } = ledger;
    await store.appendBatch([runCreated("r1"), orderCreated("r1", "o1"), ev("RUN_CANCELLED", "r1")]);
    await expect(store.append(orderCreated("r1", "o2"))).rejects.toThrow(
      /run r1 is CANCELLED: ORDER_CREATED/,
    );
    await expect(store.append(ev("RUN_UPDATED", "r1", null, { objective: "x" }))).rejects.toThrow(
      /CANCELLED/,
    );
    await expect(store.append(ev("ORDER_CLAIMED", "r1", "o1"))).rejects.toThrow(/run r1 is CANCELLED/);
    await store.append(ev("ORDER_CANCELLED", "r1", "o1"));
    const run = await store.getRun("r1");
    expect(run?.orders).toEqual([{ order_id: "o1", status: "CANCELLED" }]);
  });

  it("refuses events for runs and orders that were never created", async () => {
    const { store } = ledger;
    await expect(store.append(orderCreated("r9", "o9"))).rejects.toThrow(/run r9 is absent: ORDER_CREATED/);
    await store.append(runCreated("r1"));
    await expect(store.append(ev("ORDER_STARTED", "r1", "o9", { attempt: 1 }))).rejects.toThrow(
      /order o9 is absent: ORDER_STARTED/,
    );
    await expect(store.append(runCreated("r1"))).rejects.toThrow(
      /run r1 is OPEN: RUN_CREATED .*already exists/,
    );
  });

  it("refuses an event whose ids contradict the order's run or the run's theater", async () => {
    const { store } = ledger;
    await store.appendBatch([runCreated("r1"), runCreated("r2"), orderCreated("r1", "o1")]);
    await expect(store.append(ev("ORDER_ENQUEUED", "r2", "o1"))).rejects.toThrow(/belongs to run r1/);
    const otherTheater = { ...ev("RUN_UPDATED", "r1"), theater_id: "other" };
    await expect(store.append(otherTheater)).rejects.toThrow(/belongs to theater demo, not other/);
  });

  it("applies a batch in order, so a worker's whole report is checked against its own earlier events", async () => {
    const { store } = ledger;
    await store.appendBatch([runCreated("r1"), orderCreated("r1", "o1")]);
    const illegal = [...workerBatch("r1", "o1"), ev("ORDER_COMPLETED", "r1", "o1")];
    await expect(store.appendBatch(illegal)).rejects.toThrow(/order o1 is COMPLETED: ORDER_COMPLETED/);
    expect(await store.head()).toBe(2);
    expect((await store.getOrder("o1"))?.status).toBe("QUEUED");
    expect((await store.getRun("r1"))?.version).toBe(2);
  });

  it("counts attempts through reissues and refuses going back to an older attempt", async () => {
    const { store } = ledger;
    await store.appendBatch([
      runCreated("r1"),
      orderCreated("r1", "o1"),
      ev("ORDER_STARTED", "r1", "o1", { attempt: 1 }),
      ev("ORDER_FAILED", "r1", "o1", { reason: "timeout" }),
      ev("ORDER_REISSUED", "r1", "o1", { attempt: 2 }),
    ]);
    expect(await store.getOrder("o1")).toMatchObject({ status: "QUEUED", attempt: 2, unit_id: null });
    await expect(store.append(ev("ORDER_STARTED", "r1", "o1", { attempt: 1 }))).rejects.toThrow(
      /attempt 1 is older/,
    );
    await store.append(ev("ORDER_STARTED", "r1", "o1", { attempt: 2 }));
    expect(await store.getOrder("o1")).toMatchObject({ status: "RUNNING", attempt: 2, finished_at: null });
  });

  it("rebuilds byte-identical snapshots from the events", async () => {
    const { store } = ledger;
    await store.appendBatch(fullLifecycle("r1", "o1"));
    await store.appendBatch([runCreated("r2"), orderCreated("r2", "o2"), orderCreated("r2", "o3")]);
    await store.appendBatch([
      ev("ORDER_STARTED", "r2", "o2", { attempt: 1 }),
      ev("ORDER_BLOCKED", "r2", "o2", { reason: "needs input" }),
      ev("ESCALATION_RAISED", "r2", "o2", { severity: "HIGH" }),
      ev("ORDER_CANCELLED", "r2", "o3"),
      ev("RUN_FAILED", "r2"),
    ]);
    const before = await store.dumpSnapshots();
    expect(before.runs.map(([id]) => id)).toEqual(["r1", "r2"]);
    expect(before.orders.map(([id]) => id)).toEqual(["o1", "o2", "o3"]);
    const report = await store.rebuild();
    expect(report).toMatchObject({ events: 24, runs: 2, orders: 3 });
    expect(await store.dumpSnapshots()).toEqual(before);
  });

  it("rebuilds a snapshot changed behind its back and removes one no event made", async () => {
    const { store } = ledger;
    await store.appendBatch([runCreated("r1"), orderCreated("r1", "o1"), orderCreated("r1", "o2")]);
    const before = await store.dumpSnapshots();
    const raw = await ledger.raw();
    try {
      await raw.exec(`UPDATE order_snapshots SET snapshot = '{"tampered":true}' WHERE order_id = 'o2'`);
      await raw.exec(`INSERT INTO run_snapshots (run_id, snapshot) VALUES ('ghost', '{}')`);
    } finally {
      await raw.close();
    }
    expect(await store.dumpSnapshots()).not.toEqual(before);
    await store.rebuild();
    expect(await store.dumpSnapshots()).toEqual(before);
  });
});
