import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteEventStore } from "../../src/ledger/index.js";
import { ev, fullLifecycle, orderCreated, runCreated } from "./events.js";

/** The SQLite ledger finds events by type through event_type_blocks; these are its upgrade and its writers. */
describe("sqlite ledger: reads by type without a type index", () => {
  let dir: string;
  let path: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), "ironclaw-type-blocks-"));
    path = join(dir, "ledger.db");
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  const indexNames = (db: Database.Database) =>
    db
      .prepare(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'events' AND sql IS NOT NULL",
      )
      .pluck()
      .all();

  it("upgrades a ledger written with the type index: every stored event is found by type, the index is gone", async () => {
    const first = await SqliteEventStore.open({ path });
    await first.appendBatch(fullLifecycle("r1", "o1"));
    await first.close();
    // What a ledger written before event_type_blocks holds: the index, and neither the table nor its trigger.
    const old = new Database(path);
    old.exec(
      "DROP TRIGGER events_type_block; DROP TABLE event_type_blocks; CREATE INDEX events_by_type ON events (type, position)",
    );
    expect(indexNames(old)).toContain("events_by_type");
    old.close();

    const store = await SqliteEventStore.open({ path });
    await store.appendBatch([runCreated("r2"), orderCreated("r2", "o2")]);
    const created = await store.read({ types: ["RUN_CREATED", "ORDER_CREATED"] });
    expect(created.map((e) => [e.position, e.run_id])).toEqual([
      [1, "r1"],
      [2, "r1"],
      [17, "r2"],
      [18, "r2"],
    ]);
    await store.close();
    const upgraded = new Database(path);
    expect(indexNames(upgraded)).not.toContain("events_by_type");
    upgraded.close();
  });

  it("finds by type an event another tool inserted with plain SQL", async () => {
    const store = await SqliteEventStore.open({ path });
    await store.append(runCreated("r1"));
    const other = new Database(path);
    other
      .prepare(
        `INSERT INTO events (position, event_id, ts, type, garrison_id, payload)
         VALUES (5000, 'e-tool', '2026-01-14T16:21:00.000Z', 'PATROL_TICK', 'local', '{}')`,
      )
      .run();
    other.close();
    // The control: an append through the store, of the same type, is found too.
    await store.append(ev("PATROL_TICK", null));
    const ticks = await store.read({ types: ["PATROL_TICK"] });
    expect(ticks.map((e) => [e.position, e.event_id === "e-tool"])).toEqual([
      [5000, true],
      [5001, false],
    ]);
    await store.close();
  });
});
