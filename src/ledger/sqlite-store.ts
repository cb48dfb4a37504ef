import Database from "better-sqlite3";
import { type AppendPlan, planAppend } from "./append-plan.js";
import { AppendSignal } from "./append-signal.js";
import { type PreparedEvent, prepareEvents } from "./event-input.js";
import { eventQuerySql } from "./event-query.js";
import {
  decodeSnapshot,
  EVENT_COLUMNS,
  type EventRow,
  encodeSnapshot,
  eventFromRow,
  eventFromValues,
  extrasOf,
  sortDump,
} from "./event-row.js";
import type {
  AppendOptions,
  EventQuery,
  EventStore,
  RebuildReport,
  RecordedEvent,
  SnapshotDump,
  StreamExpectation,
  StreamRef,
} from "./event-store.js";
import { namedIds, SnapshotSet } from "./projection.js";
import type { AppendResult, OrderSnapshot, RunSnapshot } from "./snapshot.js";
import { SQLITE_SCHEMA, type SqliteSynchronous } from "./sqlite-schema.js";

export interface SqliteStoreOptions {
  /** The database file; created with its schema unless `mustExist`. */
  path: string;
  /** PRAGMA synchronous: FULL (default) syncs the WAL on every commit, so an acknowledged append survives power loss. */
  synchronous?: SqliteSynchronous;
  /** How long a writer waits for another process's write transaction before failing (default 10 s). */
  busyTimeoutMs?: number;
  mustExist?: boolean;
}

type Stmt = Database.Statement<unknown[], unknown>;

/** Events per read while rebuilding: large enough to amortise the query, small enough to bound memory. */
const REBUILD_PAGE = 10_000;

/**
 * The embedded ledger: one SQLite file in WAL mode. Appends run in BEGIN IMMEDIATE transactions, so writers in
 * several processes queue on the file lock and the dedupe, version and transition checks see every earlier
 * commit. better-sqlite3 is synchronous; the async interface only matches the PostgreSQL store.
 */
export class SqliteEventStore implements EventStore {
  readonly kind = "sqlite" as const;
  private readonly db: Database.Database;
  private readonly signal = new AppendSignal();
  private readonly statements = new Map<string, Stmt>();

  constructor(options: SqliteStoreOptions) {
    this.db = new Database(options.path, { fileMustExist: options.mustExist ?? false });
    this.db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 10_000}`);
    this.db.pragma("journal_mode = WAL");
    this.db.pragma(`synchronous = ${options.synchronous ?? "FULL"}`);
    // The event indexes and snapshot tables are touched on every append: keep their pages in memory rather
    // than re-reading them from the OS cache (64 MiB of page cache, memory-mapped reads).
    this.db.pragma("cache_size = -65536");
    this.db.pragma("mmap_size = 268435456");
    this.db.pragma("temp_store = MEMORY");
    this.db.exec(SQLITE_SCHEMA);
    this.addExtrasColumn();
  }

  /**
   * Ledgers written before events kept unnamed keys lack the column; adding it rewrites no row. IMMEDIATE, so
   * that two processes opening the same old ledger do not both add it.
   */
  private addExtrasColumn(): void {
    const hasExtras = () =>
      (this.db.pragma("table_info(events)") as Array<{ name: string }>).some((c) => c.name === "extras");
    if (hasExtras()) return;
    this.db
      .transaction(() => {
        if (!hasExtras()) this.db.exec("ALTER TABLE events ADD COLUMN extras TEXT");
      })
      .immediate();
  }

  async append(input: unknown, options?: AppendOptions): Promise<AppendResult> {
    const [result] = this.write(prepareEvents([input], { batch: false }), options);
    if (!result) throw new Error("append: no result");
    return result;
  }

  async appendBatch(inputs: readonly unknown[], options?: AppendOptions): Promise<AppendResult[]> {
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
        this.saveSnapshots(snapshots);
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
    const byId = this.stmt(`SELECT ${EVENT_COLUMNS} FROM events WHERE event_id = ?`);
    for (const p of prepared) {
      if (!p.givenId) continue;
      const row = byId.get(p.event.event_id) as EventRow | undefined;
      if (row) stored.set(p.event.event_id, eventFromRow(row));
    }
    return stored;
  }

  private insertEvents(events: readonly RecordedEvent[]): void {
    const insert = this.stmt(
      `INSERT INTO events (${EVENT_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    for (const e of events) {
      const ids = [e.garrison_id, e.theater_id, e.run_id, e.order_id, e.unit_id];
      insert.run(e.position, e.event_id, e.ts, e.type, ...ids, JSON.stringify(e.payload), extrasOf(e));
    }
  }

  private currentHead(): number {
    const row = this.stmt("SELECT coalesce(max(position), 0) AS head FROM events").get() as { head: number };
    return row.head;
  }

  private loadSnapshots(
    events: ReadonlyArray<{ run_id: string | null; order_id: string | null }>,
    expect: readonly StreamExpectation[],
  ): SnapshotSet {
    const { runIds, orderIds } = namedIds(events);
    for (const e of expect) (e.kind === "run" ? runIds : orderIds).push(e.id);
    const set = new SnapshotSet();
    for (const id of runIds) {
      const run = this.readSnapshot<RunSnapshot>("run", id);
      if (run) set.runs.set(id, run);
    }
    for (const id of orderIds) {
      const order = this.readSnapshot<OrderSnapshot>("order", id);
      if (order) set.orders.set(id, order);
    }
    return set;
  }

  private readSnapshot<T>(kind: "run" | "order", id: string): T | undefined {
    const row = this.stmt(`SELECT snapshot FROM ${kind}_snapshots WHERE ${kind}_id = ?`).get(id) as
      | { snapshot: string }
      | undefined;
    return row ? decodeSnapshot<T>(row.snapshot) : undefined;
  }

  private saveSnapshots(set: SnapshotSet): void {
    const upsert = (kind: "run" | "order") =>
      this.stmt(
        `INSERT INTO ${kind}_snapshots (${kind}_id, snapshot) VALUES (?, ?)
         ON CONFLICT (${kind}_id) DO UPDATE SET snapshot = excluded.snapshot`,
      );
    const runs = upsert("run");
    for (const id of set.changedRuns) runs.run(id, encodeSnapshot(set.runs.get(id) as RunSnapshot));
    const orders = upsert("order");
    for (const id of set.changedOrders) orders.run(id, encodeSnapshot(set.orders.get(id) as OrderSnapshot));
  }

  async read(query: EventQuery = {}): Promise<RecordedEvent[]> {
    const { sql, params } = eventQuerySql(query, () => "?");
    const rows = this.stmt(`SELECT ${EVENT_COLUMNS} FROM events ${sql}`).all(...params) as EventRow[];
    return rows.map(eventFromRow);
  }

  async head(): Promise<number> {
    return this.currentHead();
  }

  async streamVersion(stream: StreamRef): Promise<number> {
    const snapshot = this.readSnapshot<{ version: number }>(stream.kind, stream.id);
    return snapshot?.version ?? 0;
  }

  async getRun(runId: string): Promise<RunSnapshot | undefined> {
    return this.readSnapshot<RunSnapshot>("run", runId);
  }

  async getOrder(orderId: string): Promise<OrderSnapshot | undefined> {
    return this.readSnapshot<OrderSnapshot>("order", orderId);
  }

  async dumpSnapshots(): Promise<SnapshotDump> {
    const rows = (kind: "run" | "order") =>
      (
        this.stmt(`SELECT ${kind}_id AS id, snapshot FROM ${kind}_snapshots`).all() as Array<{
          id: string;
          snapshot: string;
        }>
      ).map((r): [string, string] => [r.id, r.snapshot]);
    return sortDump({ runs: rows("run"), orders: rows("order") });
  }

  async rebuild(): Promise<RebuildReport> {
    const started = performance.now();
    const page = this.db
      .prepare(`SELECT ${EVENT_COLUMNS} FROM events WHERE position > ? ORDER BY position LIMIT ?`)
      .raw();
    // IMMEDIATE: appends from any process wait until the snapshots are consistent with the events again.
    return this.db
      .transaction((): RebuildReport => {
        const set = new SnapshotSet();
        let events = 0;
        let after = 0;
        for (;;) {
          const rows = page.all(after, REBUILD_PAGE) as unknown[][];
          for (const row of rows) set.apply(eventFromValues(row));
          events += rows.length;
          const last = rows.at(-1);
          if (!last || rows.length < REBUILD_PAGE) break;
          after = Number(last[0]);
        }
        this.db.exec("DELETE FROM run_snapshots; DELETE FROM order_snapshots;");
        this.saveSnapshots(set);
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
