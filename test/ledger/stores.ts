import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { type EventStore, PostgresEventStore, SqliteEventStore } from "../../src/ledger/index.js";

/** One ledger for one test: the store, more connections to it, and how a child process reaches it. */
export interface LedgerUnderTest {
  store: EventStore;
  /** Another independent connection to the same ledger, as a second process would open it. */
  connect(): Promise<EventStore>;
  /** Arguments that point test/ledger/fixtures/ledger-writer.ts (and the CLI) at this ledger. */
  args: string[];
  /** Plain SQL on the ledger's tables (unqualified names), as another tool would write them. */
  raw(): Promise<RawSql>;
  close(): Promise<void>;
}

export interface RawSql {
  exec(sql: string): Promise<void>;
  rows(sql: string): Promise<unknown[]>;
  close(): Promise<void>;
}

export interface StoreKind {
  name: "sqlite" | "postgres";
  open(): Promise<LedgerUnderTest>;
}

const sqlite: StoreKind = {
  name: "sqlite",
  async open() {
    const dir = mkdtempSync(join(tmpdir(), "ironclaw-ledger-"));
    const path = join(dir, "ledger.db");
    const opened: EventStore[] = [];
    const connect = async () => {
      const store = await SqliteEventStore.open({ path });
      opened.push(store);
      return store;
    };
    return {
      store: await connect(),
      connect,
      args: ["--db", path],
      async raw() {
        const db = new Database(path);
        return {
          exec: async (sql) => void db.exec(sql),
          rows: async (sql) => db.prepare(sql).all(),
          close: async () => {
            db.close();
          },
        };
      },
      async close() {
        for (const s of opened) await s.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  },
};

let schemas = 0;

const postgres: StoreKind = {
  name: "postgres",
  async open() {
    const url = process.env.IRONCLAW_TEST_POSTGRES_URL;
    if (!url)
      throw new Error("IRONCLAW_TEST_POSTGRES_URL is not set: run the suite with `npm run test:postgres`");
    // A schema per test keeps tests independent on one cluster, also across parallel test files.
    const schema = `t_${process.pid}_${++schemas}_${Date.now().toString(36)}`;
    const opened: EventStore[] = [];
    const connect = async () => {
      const store = await PostgresEventStore.open({ url, schema, poolSize: 4 });
      opened.push(store);
      return store;
    };
    return {
      store: await connect(),
      connect,
      args: ["--postgres", url, "--schema", schema],
      async raw() {
        const client = new pg.Client({ connectionString: url, options: `-c search_path=${schema}` });
        await client.connect();
        return {
          exec: async (sql) => void (await client.query(sql)),
          rows: async (sql) => (await client.query(sql)).rows,
          close: () => client.end(),
        };
      },
      async close() {
        for (const s of opened) await s.close();
        const client = new pg.Client({ connectionString: url });
        await client.connect();
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
        await client.end();
      },
    };
  },
};

/**
 * The stores this run of the suite covers: SQLite in the default `npm test`, PostgreSQL under
 * `npm run test:postgres` (test/ledger/vitest.postgres.config.ts sets IRONCLAW_LEDGER_TEST_STORE).
 */
export const stores: StoreKind[] =
  process.env.IRONCLAW_LEDGER_TEST_STORE === "postgres" ? [postgres] : [sqlite];
