import pg from "pg";
import { z } from "zod";
import type { LedgerEventInput } from "../contracts/index.js";
import { NotFoundError } from "../core/index.js";
import { planAppend } from "./append-plan.js";
import { AppendSignal } from "./append-signal.js";
import { type PreparedEvent, prepareEvents } from "./event-input.js";
import { eventQuerySql } from "./event-query.js";
import { decodeOrderSnapshot, decodeRunSnapshot, eventFromRow, sortDump } from "./event-row.js";
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
import { EVENTS, HEAD_ROW, ORDER_SNAPSHOTS, RUN_SNAPSHOTS } from "./ledger-tables.js";
import {
  LOCK_CLASS,
  type PostgresNames,
  type PostgresSynchronousCommit,
  postgresNames,
  postgresSchemaSql,
} from "./postgres-schema.js";
import { parseState, readStateStatement, writeStatement } from "./postgres-statements.js";
import { namedIds, SnapshotSet } from "./projection.js";
import type { AppendResult, OrderSnapshot, RunSnapshot } from "./snapshot.js";
import { parseRow } from "./table-schema.js";

export interface PostgresStoreOptions extends CommonStoreOptions {
  /** A connection string, e.g. postgres://user@127.0.0.1:5432/ironclaw. */
  url: string;
  /** The schema holding this ledger's tables (default `ledger`). */
  schema?: string;
  /** synchronous_commit for this ledger's sessions: on (default) waits for the WAL flush before acknowledging. */
  synchronousCommit?: PostgresSynchronousCommit;
  poolSize?: number;
}

const REBUILD_PAGE = 10_000;

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

const EXISTS_ROW = z.object({ exists: z.boolean() });

/**
 * The scale-out ledger on PostgreSQL.
 *
 * Commit-order gaps: with a plain sequence, transaction A could take position 10, B position 11, and B commit
 * first; a subscriber reading "after 9" would see 11, move its checkpoint past 10 and never see A's event.
 * Every append therefore takes a transaction-scoped advisory lock before it reads max(position), and holds it
 * until COMMIT. PostgreSQL releases xact locks only after the commit is visible, so position N+1 can be
 * assigned only once N is committed (or rolled back, leaving no row): whatever a reader sees is a gapless
 * prefix, and reading `position > checkpoint` is exact. The price is that appends to one ledger are
 * serialised, as they are on SQLite; the lock also orders the dedupe, expected-version and transition checks.
 * (Reading only below the oldest in-flight xid would let appends overlap, at the cost of lag and complexity.)
 */
export class PostgresEventStore implements EventStore {
  readonly kind = "postgres" as const;
  private readonly signal = new AppendSignal();
  private listener: Promise<pg.Client> | undefined;
  private closed = false;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly names: PostgresNames,
    private readonly options: PostgresStoreOptions,
  ) {}

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
      await store.transaction(async (client) => {
        if (options.mustExist) {
          const { rows } = await client.query("SELECT to_regclass($1) IS NOT NULL AS exists", [names.events]);
          if (!parseRow(EXISTS_ROW, rows[0], "to_regclass").exists)
            throw new NotFoundError("ledger schema", names.schema);
        }
        await client.query(postgresSchemaSql(names));
      });
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
    const expect = options.expect ?? [];
    const { runIds, orderIds } = namedIds(prepared.map((p) => p.event));
    for (const e of expect) (e.kind === "run" ? runIds : orderIds).push(e.id);
    const eventIds = prepared.filter((p) => p.givenId).map((p) => p.event.event_id);
    const plan = await this.transaction(async (client) => {
      const read = readStateStatement(this.names, { runIds, orderIds, eventIds });
      const state = parseState((await client.query(read)).rows);
      const plan = planAppend({ prepared, ...state, expect });
      const last = plan.fresh.at(-1);
      if (last) {
        const changed = {
          runs: state.snapshots.runSnapshots("changed"),
          orders: state.snapshots.orderSnapshots("changed"),
        };
        await client.query(writeStatement(this.names, plan.fresh, changed, last.position));
      }
      return plan;
    });
    const last = plan.fresh.at(-1);
    if (last) this.signal.notify(last.position);
    return plan.results;
  }

  async read(query: EventQuery = {}): Promise<RecordedEvent[]> {
    const { sql, params } = eventQuerySql(query, (i) => `$${i}`);
    const { rows } = await this.pool.query(`SELECT ${EVENTS.list} FROM ${this.names.events} ${sql}`, params);
    return rows.map((row: unknown) => eventFromRow(parseRow(EVENTS.row, row, EVENTS.name)));
  }

  async head(): Promise<number> {
    const { rows } = await this.pool.query(
      `SELECT coalesce(max(position), 0) AS head FROM ${this.names.events}`,
    );
    return parseRow(HEAD_ROW, rows[0], EVENTS.name).head;
  }

  async streamVersion(stream: StreamRef): Promise<number> {
    const snapshot = stream.kind === "run" ? await this.getRun(stream.id) : await this.getOrder(stream.id);
    return snapshot?.version ?? 0;
  }

  async getRun(runId: string): Promise<RunSnapshot | undefined> {
    const { rows } = await this.pool.query(
      `SELECT ${RUN_SNAPSHOTS.list} FROM ${this.names.runs} WHERE run_id = $1`,
      [runId],
    );
    if (rows[0] === undefined) return undefined;
    return decodeRunSnapshot(parseRow(RUN_SNAPSHOTS.row, rows[0], RUN_SNAPSHOTS.name).snapshot);
  }

  async getOrder(orderId: string): Promise<OrderSnapshot | undefined> {
    const { rows } = await this.pool.query(
      `SELECT ${ORDER_SNAPSHOTS.list} FROM ${this.names.orders} WHERE order_id = $1`,
      [orderId],
    );
    if (rows[0] === undefined) return undefined;
    return decodeOrderSnapshot(parseRow(ORDER_SNAPSHOTS.row, rows[0], ORDER_SNAPSHOTS.name).snapshot);
  }

  async dumpSnapshots(): Promise<SnapshotDump> {
    const runs = await this.pool.query(`SELECT ${RUN_SNAPSHOTS.list} FROM ${this.names.runs}`);
    const orders = await this.pool.query(`SELECT ${ORDER_SNAPSHOTS.list} FROM ${this.names.orders}`);
    return sortDump({
      runs: runs.rows
        .map((row: unknown) => parseRow(RUN_SNAPSHOTS.row, row, RUN_SNAPSHOTS.name))
        .map((r): [string, string] => [r.run_id, r.snapshot]),
      orders: orders.rows
        .map((row: unknown) => parseRow(ORDER_SNAPSHOTS.row, row, ORDER_SNAPSHOTS.name))
        .map((o): [string, string] => [o.order_id, o.snapshot]),
    });
  }

  async rebuild(): Promise<RebuildReport> {
    const started = performance.now();
    return this.transaction(async (client) => {
      // Appends wait on the lock until the snapshots are consistent with the events again.
      const set = new SnapshotSet();
      let after = 0;
      let events = 0;
      for (;;) {
        const result = await client.query(
          `SELECT ${EVENTS.list} FROM ${this.names.events} WHERE position > $1 ORDER BY position LIMIT $2`,
          [after, REBUILD_PAGE],
        );
        const rows = result.rows.map((row: unknown) => parseRow(EVENTS.row, row, EVENTS.name));
        for (const row of rows) set.apply(eventFromRow(row));
        events += rows.length;
        const last = rows.at(-1);
        if (!last || rows.length < REBUILD_PAGE) break;
        after = last.position;
      }
      await client.query(`DELETE FROM ${this.names.runs}; DELETE FROM ${this.names.orders};`);
      const all = { runs: set.runSnapshots("all"), orders: set.orderSnapshots("all") };
      await client.query(writeStatement(this.names, [], all));
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

  /**
   * Runs `work` in a transaction that holds this ledger's advisory lock from the start. BEGIN and the lock go
   * in one round trip (the simple query protocol allows several statements; both keys are integers we made).
   */
  private async transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
    const client = await this.pool.connect();
    let broken = false;
    try {
      await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${LOCK_CLASS}, ${this.names.lockKey})`);
      const result = await work(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {
        broken = true;
      });
      throw error;
    } finally {
      client.release(broken);
    }
  }
}
