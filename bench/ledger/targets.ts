import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import pg from "pg";
import { type EventStore, PostgresEventStore, SqliteEventStore } from "../../src/ledger/index.js";

/** The raw-INSERT baseline: a bare table of (id, body) with the same durability settings as the ledger. */
export interface Baseline {
  insertOne(body: string): Promise<void>;
  insertBatch(bodies: string[]): Promise<void>;
  close(): Promise<void>;
}

/** One store under benchmark, with its baseline, a way to open fresh ledgers, and child-process arguments. */
export interface Target {
  name: "sqlite" | "postgres";
  durability: string;
  openLedger(label: string): Promise<{ store: EventStore; args: string[] }>;
  openBaseline(): Promise<Baseline>;
  cleanup(): Promise<void>;
}

export function sqliteTarget(): Target {
  const dir = mkdtempSync(join(tmpdir(), "ironclaw-bench-"));
  const pragmas = (db: Database.Database) => {
    db.pragma("journal_mode = WAL");
    db.pragma("synchronous = FULL");
  };
  return {
    name: "sqlite",
    durability: "WAL, synchronous=FULL",
    async openLedger(label) {
      const path = join(dir, `${label}.db`);
      return { store: await SqliteEventStore.open({ path, synchronous: "FULL" }), args: ["--db", path] };
    },
    async openBaseline() {
      const db = new Database(join(dir, "raw.db"));
      pragmas(db);
      db.exec("CREATE TABLE raw (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
      const insert = db.prepare("INSERT INTO raw (body) VALUES (?)");
      const batch = db.transaction((bodies: string[]) => {
        for (const body of bodies) insert.run(body);
      });
      return {
        async insertOne(body) {
          insert.run(body);
        },
        async insertBatch(bodies) {
          batch(bodies);
        },
        async close() {
          db.close();
        },
      };
    },
    async cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export function postgresTarget(url: string): Target {
  const schemas: string[] = [];
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  return {
    name: "postgres",
    durability: "synchronous_commit=on",
    async openLedger(label) {
      const schema = `bench_${label}`;
      schemas.push(schema);
      await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      const store = await PostgresEventStore.open({ url, schema, synchronousCommit: "on" });
      return { store, args: ["--postgres", url, "--schema", schema] };
    },
    async openBaseline() {
      schemas.push("bench_raw");
      await admin.query("DROP SCHEMA IF EXISTS bench_raw CASCADE; CREATE SCHEMA bench_raw");
      await admin.query("CREATE TABLE bench_raw.raw (id bigserial PRIMARY KEY, body text NOT NULL)");
      const pool = new pg.Pool({ connectionString: url, max: 1, options: "-c synchronous_commit=on" });
      return {
        async insertOne(body) {
          await pool.query("INSERT INTO bench_raw.raw (body) VALUES ($1)", [body]);
        },
        // One multi-row INSERT: one statement, one round trip, one commit, the cheapest way to store a batch
        // atomically.
        async insertBatch(bodies) {
          const rows = bodies.map((_, i) => `($${i + 1})`).join(", ");
          await pool.query(`INSERT INTO bench_raw.raw (body) VALUES ${rows}`, bodies);
        },
        async close() {
          await pool.end();
        },
      };
    },
    async cleanup() {
      for (const schema of schemas) await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await admin.end();
    },
  };
}
