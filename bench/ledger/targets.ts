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

/** Stored event rows as the database returns them: column names, and each row's values in that order. */
export interface EventRows {
  columns: string[];
  rows: unknown[][];
}

/** Inserts stored event rows, as they are, into a fresh ledger's events table: the ledger's work minus its code. */
export interface RowFloor {
  insertOne(row: unknown[]): Promise<void>;
  insertBatch(rows: unknown[][]): Promise<void>;
  close(): Promise<void>;
}

/** One store under benchmark, with its baseline, a way to open fresh ledgers, and child-process arguments. */
export interface Target {
  name: "sqlite" | "postgres";
  durability: string;
  openLedger(label: string): Promise<{ store: EventStore; args: string[] }>;
  openBaseline(): Promise<Baseline>;
  /** The events table of the ledger opened as `label`, in position order. */
  eventRows(label: string): Promise<EventRows>;
  /** A fresh ledger (`label`) whose events table takes rows with these columns directly. */
  openRowFloor(label: string, columns: string[]): Promise<RowFloor>;
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
      return inserter<string>(db, "INSERT INTO raw (body) VALUES (?)");
    },
    async eventRows(label) {
      const db = new Database(join(dir, `${label}.db`), { readonly: true });
      try {
        const read = db.prepare("SELECT * FROM events ORDER BY position").raw();
        return { columns: read.columns().map((c) => c.name), rows: read.all() as unknown[][] };
      } finally {
        db.close();
      }
    },
    async openRowFloor(label, columns) {
      const path = join(dir, `${label}.db`);
      await (await SqliteEventStore.open({ path, synchronous: "FULL" })).close();
      const db = new Database(path);
      pragmas(db);
      const places = columns.map(() => "?").join(", ");
      return inserter<unknown[]>(db, `INSERT INTO events (${columns.join(", ")}) VALUES (${places})`);
    },
    async cleanup() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** One prepared INSERT on `db`: a value a statement, or many in one transaction; closing closes `db`. */
function inserter<T>(db: Database.Database, sql: string) {
  const insert = db.prepare(sql);
  const batch = db.transaction((values: T[]) => {
    for (const value of values) insert.run(value);
  });
  return {
    async insertOne(value: T) {
      insert.run(value);
    },
    async insertBatch(values: T[]) {
      batch(values);
    },
    async close() {
      db.close();
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
    async eventRows(label) {
      const read = await admin.query({
        text: `SELECT * FROM bench_${label}.events ORDER BY position`,
        rowMode: "array",
      });
      return { columns: read.fields.map((f) => f.name), rows: read.rows as unknown[][] };
    },
    async openRowFloor(label, columns) {
      await (await this.openLedger(label)).store.close();
      const pool = new pg.Pool({ connectionString: url, max: 1, options: "-c synchronous_commit=on" });
      const insert = (rows: unknown[][]) => {
        const values = rows.map(
          (_, i) => `(${columns.map((_c, j) => `$${i * columns.length + j + 1}`).join(", ")})`,
        );
        return pool.query(
          `INSERT INTO bench_${label}.events (${columns.join(", ")}) VALUES ${values.join(", ")}`,
          rows.flat(),
        );
      };
      return {
        async insertOne(row) {
          await insert([row]);
        },
        // One multi-row INSERT, as the ledger's own write sends its events.
        async insertBatch(rows) {
          await insert(rows);
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
