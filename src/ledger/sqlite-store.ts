import { existsSync, mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import type { LedgerEventInput } from "../contracts/index.js";
import { NotFoundError } from "../core/index.js";
import { type AppendPlan, planAppend } from "./append-plan.js";
import { AppendSignal } from "./append-signal.js";
import { type PreparedEvent, prepareEvents } from "./event-input.js";
import { decodeOrderSnapshot, decodeRunSnapshot } from "./event-row.js";
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
import { namedIds, SnapshotSet } from "./projection.js";
import type { AppendResult, OrderSnapshot, RunSnapshot } from "./snapshot.js";
import { type EncodedSnapshots, encodeSnapshots, SnapshotCaches } from "./snapshot-cache.js";
import { createSqliteSchema, type SqliteSynchronous } from "./sqlite-schema.js";
import { replaceSnapshots } from "./sqlite-snapshot-replace.js";
import { SqliteStatements } from "./sqlite-statements.js";

export interface SqliteStoreOptions extends CommonStoreOptions {
  /** The database file; created with its schema (and its directory) unless `mustExist`. */
  path: string;
  /** PRAGMA synchronous: FULL (default) syncs the WAL on every commit, so an acknowledged append survives power loss. */
  synchronous?: SqliteSynchronous;
  /** How long a writer waits for another process's write transaction before failing (default 10 s). */
  busyTimeoutMs?: number;
}

/**
 * Events per read while rebuilding: enough to amortise the query, few enough that a page's rows are garbage
 * before the young generation fills. Pages of 10k rows lived long enough to be promoted, and the rebuild spent a
 * fifth of its time collecting them: 2k rows rebuild ~320k events/s here against ~265k/s.
 */
const REBUILD_PAGE = 2_000;

/**
 * The embedded ledger: one SQLite file in WAL mode. Appends run in BEGIN IMMEDIATE transactions, so writers in
 * several processes queue on the file lock and the dedupe, version and transition checks see every earlier
 * commit. better-sqlite3 is synchronous; the async interface only matches the PostgreSQL store.
 */
export class SqliteEventStore implements EventStore {
  readonly kind = "sqlite" as const;
  private readonly signal = new AppendSignal();
  private readonly statements: SqliteStatements;
  private readonly caches = new SnapshotCaches();
  private readonly appendTransaction: Database.Transaction<
    (prepared: PreparedEvent[], expect: readonly StreamExpectation[]) => AppendWork
  >;
  private readonly rebuildTransaction: Database.Transaction<() => RebuildReport>;

  private constructor(private readonly db: Database.Database) {
    this.statements = new SqliteStatements(db);
    this.appendTransaction = db.transaction((prepared, expect) => this.planAndWrite(prepared, expect));
    this.rebuildTransaction = db.transaction(() => this.rebuildSnapshots());
  }

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
      createSqliteSchema(db);
      return new SqliteEventStore(db);
    } catch (error) {
      db.close();
      throw error;
    }
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
    // IMMEDIATE takes the write lock at BEGIN, so what the plan reads cannot change before it writes.
    const { plan, written } = this.appendTransaction.immediate(prepared, options.expect ?? []);
    this.caches.rememberAll(written);
    const last = plan.fresh.at(-1);
    if (last) this.signal.notify(last.position);
    return plan.results;
  }

  private planAndWrite(prepared: PreparedEvent[], expect: readonly StreamExpectation[]): AppendWork {
    const snapshots = this.loadSnapshots(prepared, expect);
    const plan = planAppend({
      prepared,
      head: this.statements.currentHead(),
      stored: this.storedCopies(prepared),
      snapshots,
      expect,
    });
    this.statements.insertEvents(plan.fresh);
    const written = encodeSnapshots(snapshots, "changed");
    this.statements.saveSnapshots(written);
    return { plan, written };
  }

  /** Earlier copies of the event_ids the writer chose; generated ids are new by construction. */
  private storedCopies(prepared: PreparedEvent[]): Map<string, RecordedEvent> {
    const ids = prepared.filter((p) => p.givenId).map((p) => p.event.event_id);
    return new Map(this.statements.storedEvents(ids).map((event) => [event.event_id, event]));
  }

  private loadSnapshots(prepared: PreparedEvent[], expect: readonly StreamExpectation[]): SnapshotSet {
    const { runIds, orderIds } = namedIds(
      prepared.map((p) => p.event),
      expect,
    );
    const set = new SnapshotSet();
    for (const id of runIds) {
      const text = this.statements.snapshotText("run", id);
      if (text !== undefined) set.runs.set(id, this.caches.runs.read(id, text));
    }
    for (const id of orderIds) {
      const text = this.statements.snapshotText("order", id);
      if (text !== undefined) set.orders.set(id, this.caches.orders.read(id, text));
    }
    return set;
  }

  async read(query: EventQuery = {}): Promise<RecordedEvent[]> {
    return this.statements.readEvents(query);
  }

  async head(): Promise<number> {
    return this.statements.currentHead();
  }

  async streamVersion(stream: StreamRef): Promise<number> {
    const text = this.statements.snapshotText(stream.kind, stream.id);
    if (text === undefined) return 0;
    const cache = stream.kind === "run" ? this.caches.runs : this.caches.orders;
    return cache.read(stream.id, text).version;
  }

  // Callers get a snapshot of their own, decoded afresh: the cached ones are shared with appends.
  async getRun(runId: string): Promise<RunSnapshot | undefined> {
    const text = this.statements.snapshotText("run", runId);
    return text === undefined ? undefined : decodeRunSnapshot(text);
  }

  async getOrder(orderId: string): Promise<OrderSnapshot | undefined> {
    const text = this.statements.snapshotText("order", orderId);
    return text === undefined ? undefined : decodeOrderSnapshot(text);
  }

  async dumpSnapshots(): Promise<SnapshotDump> {
    return this.statements.dumpSnapshots();
  }

  async rebuild(): Promise<RebuildReport> {
    try {
      // IMMEDIATE: appends from any process wait until the snapshots are consistent with the events again.
      return this.rebuildTransaction.immediate();
    } finally {
      this.caches.clear();
    }
  }

  private rebuildSnapshots(): RebuildReport {
    const started = performance.now();
    const set = new SnapshotSet({ owned: true });
    let events = 0;
    let after = 0;
    for (;;) {
      const rows = this.statements.projectionPage(after, REBUILD_PAGE);
      for (const event of rows) set.apply(event);
      events += rows.length;
      const last = rows.at(-1);
      if (!last || rows.length < REBUILD_PAGE) break;
      after = last.position;
    }
    replaceSnapshots(this.db, encodeSnapshots(set, "all"));
    return { events, runs: set.runs.size, orders: set.orders.size, millis: performance.now() - started };
  }

  waitForAppend(after: number, options: { timeoutMs: number; signal?: AbortSignal }): Promise<void> {
    // Other processes' appends are not signalled; the caller's timeout is its polling interval for them.
    return this.signal.wait(after, options);
  }

  async close(): Promise<void> {
    this.signal.wakeAll();
    if (this.db.open) this.db.close();
  }
}

/** What an append transaction decided and wrote; the snapshots are remembered once it has committed. */
interface AppendWork {
  plan: AppendPlan;
  written: EncodedSnapshots;
}
