import pg from "pg";
import type { LedgerEventInput } from "../contracts/index.js";
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
  StreamRef,
} from "./event-store.js";
import { PostgresAppender } from "./postgres-append.js";
import {
  dumpSnapshots,
  readEvents,
  readHead,
  readProjectionPage,
  readSnapshotText,
} from "./postgres-queries.js";
import {
  ensurePostgresSchema,
  type PostgresNames,
  type PostgresSynchronousCommit,
  postgresNames,
} from "./postgres-schema.js";
import { writeStatement } from "./postgres-statements.js";
import { inLedgerTransaction } from "./postgres-transaction.js";
import { SnapshotSet } from "./projection.js";
import type { AppendResult, OrderSnapshot, RunSnapshot } from "./snapshot.js";
import { encodeSnapshots, SnapshotCaches } from "./snapshot-cache.js";

export interface PostgresStoreOptions extends CommonStoreOptions {
  /** A connection string, e.g. postgres://user@127.0.0.1:5432/ironclaw. */
  url: string;
  /** The schema holding this ledger's tables (default `ledger`). */
  schema?: string;
  /** synchronous_commit for this ledger's sessions: on (default) waits for the WAL flush before acknowledging. */
  synchronousCommit?: PostgresSynchronousCommit;
  poolSize?: number;
}

/** Events per read while rebuilding; see the SQLite store's. */
const REBUILD_PAGE = 2_000;

/**
 * The driver hands over int8 as a number and json as its text, as better-sqlite3 does, so that one row schema
 * per table reads both stores. Positions stay far below 2^53; the row schema refuses any that does not.
 */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: (id, format) => {
    if (id === pg.types.builtins.INT8) return Number;
    if (id === pg.types.builtins.JSON) return (text: string) => text;
    return pg.types.getTypeParser(id, format);
  },
};

/**
 * The scale-out ledger on PostgreSQL.
 *
 * Commit-order gaps: with a plain sequence, transaction A could take position 10, B position 11, and B commit
 * first; a subscriber reading "after 9" would see 11, move its checkpoint past 10 and never see A's event.
 * Every append therefore takes a transaction-scoped advisory lock before it writes, and holds it until COMMIT.
 * PostgreSQL releases xact locks only after the commit is visible, so position N+1 can be assigned only once N
 * is committed (or rolled back, leaving no row): whatever a reader sees is a gapless prefix, and reading
 * `position > checkpoint` is exact. The price is that appends to one ledger are serialised, as they are on
 * SQLite; the lock also orders the dedupe, expected-version and transition checks. An append planned from
 * what this store wrote last is one statement that takes the lock itself (postgres-append.ts): a position is
 * a primary key, so one planned from a head that has moved on fails and is made the careful way instead.
 * (Reading only below the oldest in-flight xid would let appends overlap, at the cost of lag and complexity.)
 */
export class PostgresEventStore implements EventStore {
  readonly kind = "postgres" as const;
  private readonly signal = new AppendSignal();
  private readonly caches = new SnapshotCaches();
  private readonly appender: PostgresAppender;
  private listener: Promise<pg.Client> | undefined;
  private closed = false;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly names: PostgresNames,
    private readonly options: PostgresStoreOptions,
  ) {
    this.appender = new PostgresAppender(pool, names, this.caches);
  }

  /**
   * Connects and creates the schema unless `mustExist`, bringing an older one up to date; concurrent first
   * starts are serialised by the advisory lock.
   */
  static async open(options: PostgresStoreOptions): Promise<PostgresEventStore> {
    const names = postgresNames(options.schema ?? "ledger");
    const pool = new pg.Pool({
      connectionString: options.url,
      max: options.poolSize ?? 10,
      options: `-c synchronous_commit=${options.synchronousCommit ?? "on"}`,
      types: TYPES,
    });
    // An idle client whose server went away must not crash the process; the next query reconnects.
    pool.on("error", () => {});
    const store = new PostgresEventStore(pool, names, options);
    try {
      await inLedgerTransaction(pool, names, (client) =>
        ensurePostgresSchema(client, names, options.mustExist ?? false),
      );
    } catch (error) {
      await pool.end();
      throw error;
    }
    return store;
  }

  async append(input: LedgerEventInput, options?: AppendOptions): Promise<AppendResult> {
    const [result] = await this.write(prepareEvents([input], { batch: false }), options);
    if (!result) throw new Error("append: no result");
    return result;
  }

  async appendBatch(inputs: readonly LedgerEventInput[], options?: AppendOptions): Promise<AppendResult[]> {
    return this.write(prepareEvents(inputs, { batch: true }), options);
  }

  private async write(prepared: PreparedEvent[], options: AppendOptions = {}): Promise<AppendResult[]> {
    const plan = await this.appender.append(prepared, options.expect ?? []);
    const last = plan.fresh.at(-1);
    if (last) this.signal.notify(last.position);
    return plan.results;
  }

  async read(query: EventQuery = {}): Promise<RecordedEvent[]> {
    return readEvents(this.pool, this.names, query);
  }

  async head(): Promise<number> {
    return readHead(this.pool, this.names);
  }

  async streamVersion(stream: StreamRef): Promise<number> {
    const text = await readSnapshotText(this.pool, this.names, stream.kind, stream.id);
    if (text === undefined) return 0;
    return (stream.kind === "run" ? this.caches.runs : this.caches.orders).read(stream.id, text).version;
  }

  // Callers get a snapshot of their own, decoded afresh: the cached ones are shared with appends.
  async getRun(runId: string): Promise<RunSnapshot | undefined> {
    const text = await readSnapshotText(this.pool, this.names, "run", runId);
    return text === undefined ? undefined : decodeRunSnapshot(text);
  }

  async getOrder(orderId: string): Promise<OrderSnapshot | undefined> {
    const text = await readSnapshotText(this.pool, this.names, "order", orderId);
    return text === undefined ? undefined : decodeOrderSnapshot(text);
  }

  async dumpSnapshots(): Promise<SnapshotDump> {
    return dumpSnapshots(this.pool, this.names);
  }

  async rebuild(): Promise<RebuildReport> {
    try {
      return await this.rebuildSnapshots();
    } finally {
      this.appender.forget();
    }
  }

  private async rebuildSnapshots(): Promise<RebuildReport> {
    const started = performance.now();
    return inLedgerTransaction(this.pool, this.names, async (client) => {
      // Appends wait on the lock until the snapshots are consistent with the events again.
      const set = new SnapshotSet({ owned: true });
      let after = 0;
      let events = 0;
      for (;;) {
        const rows = await readProjectionPage(client, this.names, after, REBUILD_PAGE);
        for (const event of rows) set.apply(event);
        events += rows.length;
        const last = rows.at(-1);
        if (!last || rows.length < REBUILD_PAGE) break;
        after = last.position;
      }
      await client.query(`DELETE FROM ${this.names.runs}; DELETE FROM ${this.names.orders};`);
      await client.query(writeStatement(this.names, { events: [], upserts: encodeSnapshots(set, "all") }));
      return { events, runs: set.runs.size, orders: set.orders.size, millis: performance.now() - started };
    });
  }

  async waitForAppend(after: number, options: { timeoutMs: number; signal?: AbortSignal }): Promise<void> {
    if (!this.closed) {
      // Other writers announce their commits with NOTIFY; without a listener the timeout still polls.
      await this.listen().catch(() => undefined);
    }
    return this.signal.wait(after, options);
  }

  private listen(): Promise<pg.Client> {
    this.listener ??= (async () => {
      const client = new pg.Client({ connectionString: this.options.url });
      client.on("error", () => {
        this.listener = undefined;
        client.end().catch(() => undefined);
      });
      client.on("notification", (message) => {
        const head = Number(message.payload);
        if (Number.isFinite(head)) this.signal.notify(head);
      });
      await client.connect();
      await client.query(`LISTEN ${this.names.channel}`);
      return client;
    })().catch((error: unknown) => {
      this.listener = undefined;
      throw error;
    });
    return this.listener;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.signal.wakeAll();
    const listener = this.listener;
    this.listener = undefined;
    if (listener) await listener.then((c) => c.end()).catch(() => undefined);
    await this.pool.end();
  }
}
