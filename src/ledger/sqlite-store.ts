import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import { z } from "zod";
import type { LedgerEventInput } from "../contracts/index.js";
import { NotFoundError } from "../core/index.js";
import { type AppendPlan, planAppend } from "./append-plan.js";
import { AppendSignal } from "./append-signal.js";
import { type PreparedEvent, prepareEvents } from "./event-input.js";
import { eventQuerySql } from "./event-query.js";
import {
  decodeOrderSnapshot,
  decodeRunSnapshot,
  encodeSnapshot,
  eventFromRow,
  extrasOf,
  sortDump,
} from "./event-row.js";
import type {
  AppendOptions,
  CommonStoreOptions,
  EventQuery,
  EventStore,
  RebuildReport,
  RecordedEvent,
  SnapshotDump,
  StreamExpectation,
  StreamRef,
} from "./event-store.js";
import { EVENTS, HEAD_ROW, LEDGER_TABLES, ORDER_SNAPSHOTS, RUN_SNAPSHOTS } from "./ledger-tables.js";
import { namedIds, SnapshotSet } from "./projection.js";
import type { AppendResult, OrderSnapshot, RunSnapshot } from "./snapshot.js";
import { SQLITE_DIALECT, SQLITE_INDEXES, SQLITE_TABLES, type SqliteSynchronous } from "./sqlite-schema.js";
import { addableColumns } from "./table-ddl.js";
import { parseRow } from "./table-schema.js";

export interface SqliteStoreOptions extends CommonStoreOptions {
  /** The database file; created with its schema (and its directory) unless `mustExist`. */
  path: string;
  /** PRAGMA synchronous: FULL (default) syncs the WAL on every commit, so an acknowledged append survives power loss. */
  synchronous?: SqliteSynchronous;
  /** How long a writer waits for another process's write transaction before failing (default 10 s). */
  busyTimeoutMs?: number;
}

type Stmt = Database.Statement<unknown[], unknown>;

/** Events per read while rebuilding: large enough to amortise the query, small enough to bound memory. */
const REBUILD_PAGE = 10_000;

const TABLE_INFO = z.array(z.looseObject({ name: z.string() }));

/**
 * The embedded ledger: one SQLite file in WAL mode. Appends run in BEGIN IMMEDIATE transactions, so writers in
 * several processes queue on the file lock and the dedupe, version and transition checks see every earlier
 * commit. better-sqlite3 is synchronous; the async interface only matches the PostgreSQL store.
 */
export class SqliteEventStore implements EventStore {
  readonly kind = "sqlite" as const;
  private readonly signal = new AppendSignal();
  private readonly statements = new Map<string, Stmt>();

  private constructor(private readonly db: Database.Database) {}

  /** Opens the ledger file, creating it with its schema unless `mustExist`, and brings an older one up to date. */
  static async open(options: SqliteStoreOptions): Promise<SqliteEventStore> {
    if (options.mustExist && !existsSync(options.path))
      throw new NotFoundError("ledger database", options.path);
    if (!options.mustExist) mkdirSync(dirname(options.path), { recursive: true });
    const db = new Database(options.path, { fileMustExist: options.mustExist ?? false });
    try {
      db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 10_000}`);
      db.pragma("journal_mode = WAL");
      db.pragma(`synchronous = ${options.synchronous ?? "FULL"}`);
      // The event indexes and snapshot tables are touched on every append: keep their pages in memory rather
      // than re-reading them from the OS cache (64 MiB of page cache, memory-mapped reads).
      db.pragma("cache_size = -65536");
      db.pragma("mmap_size = 268435456");
      db.pragma("temp_store = MEMORY");
      db.exec(SQLITE_TABLES);
      addMissingColumns(db);
      db.exec(SQLITE_INDEXES);
    } catch (error) {
      db.close();
      throw error;
    }
    return new SqliteEventStore(db);
  }

  async append(input: LedgerEventInput, options?: AppendOptions): Promise<AppendResult> {
    const [result] = this.write(prepareEvents([input], { batch: false }), options);
    if (!result) throw new Error("append: no result");
    return result;
  }

  async appendBatch(inputs: readonly LedgerEventInput[], options?: AppendOptions): Promise<AppendResult[]> {
    return this.write(prepareEvents(inputs, { batch: true }), options);
  }

  private write(prepared: PreparedEvent[], options: AppendOptions = {}): AppendResult[] {
    const expect = options.expect ?? [];
    const plan = this.db
      .transaction((): AppendPlan => {
        const snapshots = this.loadSnapshots(
          prepared.map((p) => p.event),
          expect,
        );
        const plan = planAppend({
          prepared,
          head: this.currentHead(),
          stored: this.storedCopies(prepared),
          snapshots,
          expect,
        });
        this.insertEvents(plan.fresh);
        this.saveSnapshots(snapshots, "changed");
        return plan;
      })
      .immediate();
    const last = plan.fresh.at(-1);
    if (last) this.signal.notify(last.position);
    return plan.results;
  }

  /** Earlier copies of the event_ids the writer chose; generated ids are new by construction. */
  private storedCopies(prepared: PreparedEvent[]): Map<string, RecordedEvent> {
    const stored = new Map<string, RecordedEvent>();
    const byId = this.stmt(`SELECT ${EVENTS.list} FROM events WHERE event_id = ?`);
    for (const p of prepared) {
      if (!p.givenId) continue;
      const row = byId.get(p.event.event_id);
      if (row !== undefined) stored.set(p.event.event_id, eventFromRow(parseRow(EVENTS.row, row, "events")));
    }
    return stored;
  }

  private insertEvents(events: readonly RecordedEvent[]): void {
    const insert = this.stmt(`INSERT INTO events (${EVENTS.list}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    for (const e of events) {
      const ids = [e.garrison_id, e.theater_id, e.run_id, e.order_id, e.unit_id];
      insert.run(e.position, e.event_id, e.ts, e.type, ...ids, JSON.stringify(e.payload), extrasOf(e));
    }
  }

  private currentHead(): number {
    const row = this.stmt("SELECT coalesce(max(position), 0) AS head FROM events").get();
    return parseRow(HEAD_ROW, row, "events").head;
  }

  private loadSnapshots(
    events: ReadonlyArray<{ run_id: string | null; order_id: string | null }>,
    expect: readonly StreamExpectation[],
  ): SnapshotSet {
    const { runIds, orderIds } = namedIds(events);
    for (const e of expect) (e.kind === "run" ? runIds : orderIds).push(e.id);
    const set = new SnapshotSet();
    for (const id of runIds) {
      const run = this.readRun(id);
      if (run) set.runs.set(id, run);
    }
    for (const id of orderIds) {
      const order = this.readOrder(id);
      if (order) set.orders.set(id, order);
    }
    return set;
  }

  private readRun(id: string): RunSnapshot | undefined {
    const row = this.stmt(`SELECT ${RUN_SNAPSHOTS.list} FROM run_snapshots WHERE run_id = ?`).get(id);
    if (row === undefined) return undefined;
    return decodeRunSnapshot(parseRow(RUN_SNAPSHOTS.row, row, RUN_SNAPSHOTS.name).snapshot);
  }

  private readOrder(id: string): OrderSnapshot | undefined {
    const row = this.stmt(`SELECT ${ORDER_SNAPSHOTS.list} FROM order_snapshots WHERE order_id = ?`).get(id);
    if (row === undefined) return undefined;
    return decodeOrderSnapshot(parseRow(ORDER_SNAPSHOTS.row, row, ORDER_SNAPSHOTS.name).snapshot);
  }

  private saveSnapshots(set: SnapshotSet, which: "changed" | "all"): void {
    const upsert = (kind: "run" | "order") =>
      this.stmt(
        `INSERT INTO ${kind}_snapshots (${kind}_id, snapshot) VALUES (?, ?)
         ON CONFLICT (${kind}_id) DO UPDATE SET snapshot = excluded.snapshot`,
      );
    const runs = upsert("run");
    for (const run of set.runSnapshots(which)) runs.run(run.run_id, encodeSnapshot(run));
    const orders = upsert("order");
    for (const order of set.orderSnapshots(which)) orders.run(order.order_id, encodeSnapshot(order));
  }

  async read(query: EventQuery = {}): Promise<RecordedEvent[]> {
    const { sql, params } = eventQuerySql(query, () => "?");
    const rows = this.stmt(`SELECT ${EVENTS.list} FROM events ${sql}`).all(...params);
    return rows.map((row) => eventFromRow(parseRow(EVENTS.row, row, "events")));
  }

  async head(): Promise<number> {
    return this.currentHead();
  }

  async streamVersion(stream: StreamRef): Promise<number> {
    const snapshot = stream.kind === "run" ? this.readRun(stream.id) : this.readOrder(stream.id);
    return snapshot?.version ?? 0;
  }

  async getRun(runId: string): Promise<RunSnapshot | undefined> {
    return this.readRun(runId);
  }

  async getOrder(orderId: string): Promise<OrderSnapshot | undefined> {
    return this.readOrder(orderId);
  }

  async dumpSnapshots(): Promise<SnapshotDump> {
    const runs = this.stmt(`SELECT ${RUN_SNAPSHOTS.list} FROM run_snapshots`)
      .all()
      .map((row) => parseRow(RUN_SNAPSHOTS.row, row, RUN_SNAPSHOTS.name))
      .map((r): [string, string] => [r.run_id, r.snapshot]);
    const orders = this.stmt(`SELECT ${ORDER_SNAPSHOTS.list} FROM order_snapshots`)
      .all()
      .map((row) => parseRow(ORDER_SNAPSHOTS.row, row, ORDER_SNAPSHOTS.name))
      .map((o): [string, string] => [o.order_id, o.snapshot]);
    return sortDump({ runs, orders });
  }

  async rebuild(): Promise<RebuildReport> {
    const started = performance.now();
    const page = this.stmt(`SELECT ${EVENTS.list} FROM events WHERE position > ? ORDER BY position LIMIT ?`);
    // IMMEDIATE: appends from any process wait until the snapshots are consistent with the events again.
    return this.db
      .transaction((): RebuildReport => {
        const set = new SnapshotSet();
        let events = 0;
        let after = 0;
        for (;;) {
          const rows = page.all(after, REBUILD_PAGE).map((row) => parseRow(EVENTS.row, row, "events"));
          for (const row of rows) set.apply(eventFromRow(row));
          events += rows.length;
          const last = rows.at(-1);
          if (!last || rows.length < REBUILD_PAGE) break;
          after = last.position;
        }
        this.db.exec("DELETE FROM run_snapshots; DELETE FROM order_snapshots;");
        this.saveSnapshots(set, "all");
        return { events, runs: set.runs.size, orders: set.orders.size, millis: performance.now() - started };
      })
      .immediate();
  }

  waitForAppend(after: number, options: { timeoutMs: number; signal?: AbortSignal }): Promise<void> {
    // Other processes' appends are not signalled; the caller's timeout is its polling interval for them.
    return this.signal.wait(after, options);
  }

  async close(): Promise<void> {
    this.signal.wakeAll();
    if (this.db.open) this.db.close();
  }

  private stmt(sql: string): Stmt {
    let statement = this.statements.get(sql);
    if (!statement) {
      statement = this.db.prepare(sql);
      this.statements.set(sql, statement);
    }
    return statement;
  }
}

/**
 * Ledgers created before a nullable column existed (events.extras) lack it; adding it rewrites no row.
 * IMMEDIATE, so that two processes opening the same old ledger do not both add it.
 */
function addMissingColumns(db: Database.Database): void {
  const missing = () =>
    LEDGER_TABLES.flatMap((table) => {
      const info = parseRow(TABLE_INFO, db.pragma(`table_info(${table.name})`), `table_info(${table.name})`);
      const present = new Set(info.map((c) => c.name));
      return addableColumns(table, SQLITE_DIALECT).filter((c) => !present.has(c.name));
    });
  if (missing().length === 0) return;
  db.transaction(() => {
    for (const c of missing()) db.exec(`ALTER TABLE ${c.table} ADD COLUMN ${c.name} ${c.type}`);
  }).immediate();
}
