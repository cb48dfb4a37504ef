import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  findUnknownKeys,
  orderSnapshotDataSchema,
  runSnapshotDataSchema,
} from "../../src/contracts/index.js";
import { ValidationError } from "../../src/core/index.js";
import {
  createLedgerServer,
  EventIdConflictError,
  type EventStore,
  PostgresEventStore,
  SqliteEventStore,
} from "../../src/ledger/index.js";
import { ev, orderCreated, runCreated, workerBatch } from "./events.js";
import { type LedgerUnderTest, stores } from "./stores.js";

/** Keys a real producer adds beside seed 000's base fields: every JSON kind, nesting and non-ASCII text. */
const unnamed = {
  source: "worker-7",
  trace: { span: "a1", hops: [1, 2.5, null], ok: true },
  "x-note": "čeština ✓",
  empty: null,
};

describe.each(stores)("$name ledger: keys the seed does not name", (kind) => {
  let ledger: LedgerUnderTest;
  beforeEach(async () => {
    ledger = await kind.open();
  });
  afterEach(async () => {
    await ledger.close();
  });

  it("stores an event's unnamed keys and reads them back unchanged, also from another connection", async () => {
    const event = { ...runCreated("r1"), event_id: "evt-1", ts: "2026-01-14T16:21:00Z", ...unnamed };
    await ledger.store.append(event);
    const other = await ledger.connect();
    for (const store of [ledger.store, other]) {
      const [stored] = await store.read();
      expect(stored).toEqual({ ...event, order_id: null, unit_id: null, position: 1 });
    }
  });

  it("keeps the unnamed keys of each event in a batch apart", async () => {
    await ledger.store.appendBatch([
      { ...runCreated("r1"), lane: "a" },
      orderCreated("r1", "o1"),
      { ...ev("ORDER_ENQUEUED", "r1", "o1"), lane: "b", attempt_hint: 2 },
    ]);
    const events = await ledger.store.read();
    expect(events.map(({ lane, attempt_hint }) => ({ lane, attempt_hint }))).toEqual([
      { lane: "a", attempt_hint: undefined },
      { lane: undefined, attempt_hint: undefined },
      { lane: "b", attempt_hint: 2 },
    ]);
    expect(Object.keys(events[1] ?? {})).not.toContain("lane");
  });

  it("counts unnamed keys in an event's identity: the same retry is a duplicate, a changed one conflicts", async () => {
    const event = { ...runCreated("r1"), event_id: "evt-1", source: "worker-7" };
    await ledger.store.append(event);
    expect((await ledger.store.append({ ...event })).duplicate).toBe(true);
    const changed = await ledger.store.append({ ...event, source: "worker-8" }).catch((e: unknown) => e);
    expect(changed).toBeInstanceOf(EventIdConflictError);
    expect(await ledger.store.head()).toBe(1);
  });

  it("refuses a position key, which would hide the one the ledger reads back, storing nothing", async () => {
    const error = await ledger.store.append({ ...runCreated("r1"), position: 7 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as ValidationError).issues).toEqual([
      expect.objectContaining({ path: "$.position", message: expect.stringMatching(/leave it out/) }),
    ]);
    expect(await ledger.store.head()).toBe(0);
  });

  it("serves snapshots with exactly the contract's keys, whatever the events carried", async () => {
    const extra = { source: "worker-7", cost_usd: 0.01 };
    await ledger.store.appendBatch([
      { ...runCreated("r1"), ...extra },
      { ...orderCreated("r1", "o1"), ...extra },
      ...workerBatch("r1", "o1").map((e) => ({ ...e, ...extra })),
    ]);
    const run = await ledger.store.getRun("r1");
    const order = await ledger.store.getOrder("o1");
    expect(run?.status).toBe("OPEN");
    expect(order?.status).toBe("COMPLETED");
    expect(findUnknownKeys(runSnapshotDataSchema, run)).toEqual([]);
    expect(findUnknownKeys(orderSnapshotDataSchema, order)).toEqual([]);
  });

  it("round-trips unnamed keys over HTTP, for a bare-array batch too", async () => {
    const server = await createLedgerServer({ store: ledger.store, pollIntervalMs: 20 });
    try {
      const base = await server.listen({ host: "127.0.0.1", port: 0 });
      const post = (path: string, body: unknown) =>
        fetch(base + path, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body),
        });
      expect((await post("/events", { ...runCreated("r1"), ...unnamed })).status).toBe(201);
      const batch = await post("/events/batch", [{ ...orderCreated("r1", "o1"), lane: "b" }]);
      expect(batch.status).toBe(201);
      const page = (await (await fetch(`${base}/events`)).json()) as {
        data: { events: Array<Record<string, unknown>> };
      };
      expect(page.data.events[0]).toMatchObject(unnamed);
      expect(page.data.events[1]).toMatchObject({ type: "ORDER_CREATED", lane: "b" });
    } finally {
      await server.close();
    }
  });
});

/** The events table as ledgers created it before the extras column existed (SQLite or PostgreSQL types). */
const oldEventsTable = (integer: string, text: string, json: string) =>
  `(position ${integer} PRIMARY KEY, event_id ${text} NOT NULL UNIQUE, ts ${text} NOT NULL, type ${text} NOT NULL,
  garrison_id ${text} NOT NULL, theater_id ${text}, run_id ${text}, order_id ${text}, unit_id ${text},
  payload ${json} NOT NULL)`;
const OLD_ROW = "(1, 'e1', '2026-01-14T16:21:00Z', 'PATROL_TICK', 'local', NULL, NULL, NULL, NULL, '{}')";

/** Writes an old ledger for the store kind under test and opens it with today's store. */
async function openOldLedger(
  name: "sqlite" | "postgres",
): Promise<{ store: EventStore; cleanup(): Promise<void> }> {
  if (name === "sqlite") {
    const dir = mkdtempSync(join(tmpdir(), "ironclaw-ledger-old-"));
    const path = join(dir, "ledger.db");
    const old = new Database(path);
    old.exec(`CREATE TABLE events ${oldEventsTable("INTEGER", "TEXT", "TEXT")} STRICT`);
    old.exec(`INSERT INTO events VALUES ${OLD_ROW}`);
    old.close();
    return {
      store: await SqliteEventStore.open({ path }),
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const url = process.env.IRONCLAW_TEST_POSTGRES_URL ?? "";
  const schema = `t_old_${process.pid}_${Date.now().toString(36)}`;
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  await client.query(`CREATE SCHEMA ${schema}`);
  await client.query(`CREATE TABLE ${schema}.events ${oldEventsTable("bigint", "text", "json")}`);
  await client.query(`INSERT INTO ${schema}.events VALUES ${OLD_ROW}`);
  return {
    store: await PostgresEventStore.open({ url, schema, poolSize: 2 }),
    cleanup: async () => {
      await client.query(`DROP SCHEMA ${schema} CASCADE`);
      await client.end();
    },
  };
}

describe.each(stores)("$name ledger written before unnamed keys were kept", (kind) => {
  it("opens, keeps its events, and stores unnamed keys from then on", async () => {
    const old = await openOldLedger(kind.name);
    try {
      await old.store.append({ ...ev("PATROL_TICK", null), source: "do-1" });
      const events = await old.store.read();
      expect(events.map((e) => [e.event_id, e.source])).toEqual([
        ["e1", undefined],
        [events[1]?.event_id, "do-1"],
      ]);
    } finally {
      await old.store.close();
      await old.cleanup();
    }
  });
});
