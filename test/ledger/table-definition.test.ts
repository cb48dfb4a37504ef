import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NotFoundError } from "../../src/core/index.js";
import { CorruptRowError, openStore, type StoreLocation } from "../../src/ledger/index.js";
import { EVENTS, LEDGER_TABLES } from "../../src/ledger/ledger-tables.js";
import { columnType } from "../../src/ledger/table-schema.js";
import { ev, runCreated } from "./events.js";
import { type LedgerUnderTest, type RawSql, stores } from "./stores.js";

/** Each table's columns as the database reports them: name and whether it takes NULL, in table order. */
async function describedColumns(raw: RawSql, kind: string, table: string): Promise<unknown[]> {
  if (kind === "sqlite")
    return raw.rows(`SELECT name, "notnull" = 0 AND pk = 0 AS nullable FROM pragma_table_info('${table}')`);
  return raw.rows(
    `SELECT column_name AS name, (is_nullable = 'YES')::int AS nullable FROM information_schema.columns
     WHERE table_schema = current_schema() AND table_name = '${table}' ORDER BY ordinal_position`,
  );
}

async function describedIndexes(raw: RawSql, kind: string, table: string): Promise<unknown[]> {
  if (kind === "sqlite")
    return raw.rows(
      `SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = '${table}' AND sql IS NOT NULL ORDER BY name`,
    );
  return raw.rows(
    `SELECT indexname AS name FROM pg_indexes WHERE schemaname = current_schema() AND tablename = '${table}'
     AND indexname NOT LIKE '%_pkey' AND indexname NOT LIKE '%_key' ORDER BY indexname`,
  );
}

function locationOf(ledger: LedgerUnderTest): StoreLocation {
  const [flag, where, , schema] = ledger.args;
  if (flag === "--db" && where !== undefined) return { kind: "sqlite", path: where };
  if (where === undefined || schema === undefined) throw new Error(`unexpected ledger args ${ledger.args}`);
  return { kind: "postgres", url: where, schema };
}

describe.each(stores)("$name ledger: one table definition, typed rows", (kind) => {
  let ledger: LedgerUnderTest;
  let raw: RawSql;
  beforeEach(async () => {
    ledger = await kind.open();
    raw = await ledger.raw();
  });
  afterEach(async () => {
    await raw.close();
    await ledger.close();
  });

  it("creates every table with exactly the defined columns, nullability and indexes", async () => {
    for (const table of LEDGER_TABLES) {
      const defined = Object.entries(table.columns).map(([name, schema]) => ({
        name,
        nullable: name !== table.primaryKey && columnType(schema).nullable ? 1 : 0,
      }));
      expect(await describedColumns(raw, kind.name, table.name)).toEqual(defined);
      const indexes = (table.indexes ?? [])
        .filter((i) => i.onlyIn === undefined || i.onlyIn === kind.name)
        .map((i) => ({ name: i.name }))
        .sort((a, b) => (a.name < b.name ? -1 : 1));
      expect(await describedIndexes(raw, kind.name, table.name)).toEqual(indexes);
    }
    expect(Object.keys(EVENTS.columns)).toContain("extras");
  });

  it("refuses an event row another tool wrote with a wrong type, naming the table and each column", async () => {
    // The control: a row the ledger wrote reads back through the same row schema.
    await ledger.store.append(runCreated("r1"));
    expect(await ledger.store.read()).toHaveLength(1);
    await raw.exec(
      `INSERT INTO events (position, event_id, ts, type, garrison_id, payload)
       VALUES (2, 'e2', '2026-01-14T16:21:00Z', 'NOT_A_TYPE', 'local', '[1, 2]')`,
    );
    const error = await ledger.store.read().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CorruptRowError);
    expect((error as CorruptRowError).source).toBe("events");
    expect((error as CorruptRowError).issues.map((i) => i.path).sort()).toEqual(["$.payload", "$.type"]);
    // Rows before it still read, and the good event is untouched.
    expect((await ledger.store.read({ through: 1 })).map((e) => e.type)).toEqual(["RUN_CREATED"]);
  });

  it("refuses a snapshot that is not the contract's shape, and appends nothing on top of it", async () => {
    await ledger.store.append(runCreated("r1"));
    await raw.exec(
      `UPDATE run_snapshots SET snapshot = '{"run_id":"r1","status":"DONE"}' WHERE run_id = 'r1'`,
    );
    const read = await ledger.store.getRun("r1").catch((e: unknown) => e);
    expect(read).toBeInstanceOf(CorruptRowError);
    expect((read as CorruptRowError).source).toBe("run_snapshots.snapshot");
    expect((read as CorruptRowError).issues.map((i) => i.path)).toContain("$.status");
    // Another connection, which knows the run only from what is stored (this one may plan from its own copy).
    const other = await ledger.connect();
    const append = await other.append(ev("RUN_UPDATED", "r1")).catch((e: unknown) => e);
    expect(append).toBeInstanceOf(CorruptRowError);
    expect(await other.head()).toBe(1);
  });

  it.runIf(kind.name === "postgres")(
    "opens an up-to-date ledger without locking its tables, and brings an outdated one up to date",
    async () => {
      // What an append in progress holds on the events table; DDL on open would have to wait for it.
      await raw.exec("BEGIN; LOCK TABLE events IN ROW EXCLUSIVE MODE");
      const current = await ledger.connect();
      expect(await current.head()).toBe(0);
      await raw.exec("COMMIT");
      // The control: a ledger whose schema marker is not this code's runs its DDL, and so waits for the lock.
      await raw.exec("COMMENT ON TABLE events IS 'an older ledger'");
      await raw.exec("BEGIN; LOCK TABLE events IN ROW EXCLUSIVE MODE");
      const opening = ledger.connect();
      const waiting = async () =>
        (await raw.rows("SELECT 1 FROM pg_locks WHERE NOT granted AND relation = 'events'::regclass"))
          .length > 0;
      while (!(await waiting())) await new Promise((resolve) => setTimeout(resolve, 20));
      await raw.exec("COMMIT");
      await opening;
      const [marker] = await raw.rows("SELECT obj_description('events'::regclass, 'pg_class') AS marker");
      expect(marker).toMatchObject({
        marker: expect.stringMatching(/^ironclaw ledger schema sha256:[0-9a-f]{64}$/),
      });
    },
  );

  it("opens through openStore like any other store, and with mustExist refuses a missing ledger, creating nothing", async () => {
    await ledger.store.append(runCreated("r1"));
    const same = await openStore(locationOf(ledger), { mustExist: true });
    expect((await same.read()).map((e) => e.run_id)).toEqual(["r1"]);
    await same.close();

    const dir = mkdtempSync(join(tmpdir(), "ironclaw-ledger-missing-"));
    try {
      const here = locationOf(ledger);
      const missing: StoreLocation =
        here.kind === "sqlite"
          ? { kind: "sqlite", path: join(dir, "nested", "ledger.db") }
          : { ...here, schema: `missing_${process.pid}_${Date.now().toString(36)}` };
      const error = await openStore(missing, { mustExist: true }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(NotFoundError);
      if (missing.kind === "sqlite") expect(existsSync(join(dir, "nested"))).toBe(false);
      else expect(await schemaExists(missing.url, missing.schema ?? "")).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

async function schemaExists(url: string, schema: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rowCount } = await client.query("SELECT 1 FROM pg_namespace WHERE nspname = $1", [schema]);
    return rowCount === 1;
  } finally {
    await client.end();
  }
}
