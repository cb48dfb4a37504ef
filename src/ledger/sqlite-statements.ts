import type Database from "better-sqlite3";
import { DEFAULT_READ_LIMIT, eventQuerySql } from "./event-query.js";
import { sortDump } from "./event-row.js";
import type { EventQuery, ProjectedEvent, RecordedEvent, SnapshotDump } from "./event-store.js";
import {
  eventFromValues,
  eventValues,
  INSERT_COLUMNS,
  PROJECTED_COLUMNS,
  projectedFromValues,
} from "./event-values.js";
import { EVENTS, HEAD_ROW, ORDER_SNAPSHOTS, RUN_SNAPSHOTS } from "./ledger-tables.js";
import type { EncodedSnapshots } from "./snapshot-cache.js";
import { BLOCKS, blockOf, blocksSql, TYPE_BLOCK_SIZE } from "./sqlite-type-blocks.js";
import { parseRow } from "./table-schema.js";

type Stmt = Database.Statement<unknown[], unknown>;

/**
 * Every statement of the SQLite store, prepared once when the store opens, each returning parsed rows. The
 * SQL is built from the table definitions (ledger-tables.ts), so a column list is never written by hand.
 */
export class SqliteStatements {
  private readonly head: Stmt;
  private readonly eventsById: Stmt;
  private readonly runText: Stmt;
  private readonly orderText: Stmt;
  private readonly insert: Stmt;
  private readonly upsertRun: Stmt;
  private readonly upsertOrder: Stmt;
  private readonly page: Stmt;
  private readonly reads = new Map<string, Stmt>();
  private readonly readByType: Database.Transaction<
    (query: EventQuery, types: readonly string[]) => RecordedEvent[]
  >;

  constructor(private readonly db: Database.Database) {
    this.head = db.prepare("SELECT coalesce(max(position), 0) AS head FROM events");
    // Events are read in array mode (see event-values.ts).
    // A batch's ids go in as one JSON array: one statement per append rather than one lookup per event.
    this.eventsById = db
      .prepare(`SELECT ${EVENTS.list} FROM events WHERE event_id IN (SELECT value FROM json_each(?))`)
      .raw();
    this.runText = db.prepare("SELECT snapshot FROM run_snapshots WHERE run_id = ?").pluck();
    this.orderText = db.prepare("SELECT snapshot FROM order_snapshots WHERE order_id = ?").pluck();
    const marks = INSERT_COLUMNS.map(() => "?").join(", ");
    this.insert = db.prepare(`INSERT INTO events (${INSERT_COLUMNS.join(", ")}) VALUES (${marks})`);
    const upsert = (table: string, key: string) =>
      db.prepare(
        `INSERT INTO ${table} (${key}, snapshot) VALUES (?, ?) ON CONFLICT (${key}) DO UPDATE SET snapshot = excluded.snapshot`,
      );
    this.upsertRun = upsert(RUN_SNAPSHOTS.name, "run_id");
    this.upsertOrder = upsert(ORDER_SNAPSHOTS.name, "order_id");
    this.page = db
      .prepare(
        `SELECT ${PROJECTED_COLUMNS.join(", ")} FROM events WHERE position > ? ORDER BY position LIMIT ?`,
      )
      .raw();
    this.readByType = db.transaction((query, types) => this.readBlocks(query, types));
  }

  currentHead(): number {
    return parseRow(HEAD_ROW, this.head.get(), EVENTS.name).head;
  }

  /** The stored events among these event_ids, in no particular order. */
  storedEvents(eventIds: readonly string[]): RecordedEvent[] {
    if (eventIds.length === 0) return [];
    return this.eventsById.all(JSON.stringify(eventIds)).map((row) => eventFromValues(row));
  }

  /** A snapshot's stored text, or undefined when the stream does not exist. */
  snapshotText(kind: "run" | "order", id: string): string | undefined {
    const [statement, table] =
      kind === "run" ? [this.runText, RUN_SNAPSHOTS] : [this.orderText, ORDER_SNAPSHOTS];
    const text = statement.get(id);
    return text === undefined ? undefined : parseRow(table.columns.snapshot, text, `${table.name}.snapshot`);
  }

  insertEvents(events: readonly RecordedEvent[]): void {
    for (const event of events) this.insert.run(eventValues(event));
  }

  saveSnapshots(written: EncodedSnapshots): void {
    for (const { snapshot, text } of written.runs) this.upsertRun.run(snapshot.run_id, text);
    for (const { snapshot, text } of written.orders) this.upsertOrder.run(snapshot.order_id, text);
  }

  /** Events after `after` in position order, at most `limit`, as the projections read them: a rebuild's pages. */
  projectionPage(after: number, limit: number): ProjectedEvent[] {
    return this.page.all(after, limit).map((row) => projectedFromValues(row));
  }

  readEvents(query: EventQuery): RecordedEvent[] {
    const types = query.types ?? [];
    // A run or an order has its own index; types alone are found through their blocks.
    if (types.length === 0 || query.runId !== undefined || query.orderId !== undefined)
      return this.readWhere(query);
    return this.readByType.deferred(query, types);
  }

  /**
   * Walks the blocks that hold one of the types, scanning each block's positions, until the limit is reached.
   * Runs in one read transaction (readByType), so that the blocks and the events are read from one commit.
   */
  private readBlocks(query: EventQuery, types: readonly string[]): RecordedEvent[] {
    const after = query.after ?? 0;
    const limit = query.limit ?? DEFAULT_READ_LIMIT;
    const blocks = parseRow(
      BLOCKS,
      this.statement(blocksSql(types.length))
        .pluck()
        .all(blockOf(after), ...types),
      "event_type_blocks",
    );
    const out: RecordedEvent[] = [];
    for (const block of blocks) {
      const first = block * TYPE_BLOCK_SIZE;
      if (out.length >= limit || (query.through !== undefined && first > query.through)) break;
      const last = first + TYPE_BLOCK_SIZE - 1;
      out.push(
        ...this.readWhere({
          ...query,
          after: Math.max(after, first - 1),
          through: Math.min(query.through ?? last, last),
          limit: limit - out.length,
        }),
      );
    }
    return out;
  }

  private readWhere(query: EventQuery): RecordedEvent[] {
    const { sql, params } = eventQuerySql(query, () => "?");
    const statement = this.statement(`SELECT ${EVENTS.list} FROM events ${sql}`).raw();
    return statement.all(...params).map((row) => eventFromValues(row));
  }

  /** A read statement, prepared the first time its text is seen. */
  private statement(text: string): Stmt {
    let statement = this.reads.get(text);
    if (statement === undefined) {
      statement = this.db.prepare(text);
      this.reads.set(text, statement);
    }
    return statement;
  }

  dumpSnapshots(): SnapshotDump {
    const runs = this.db
      .prepare(`SELECT ${RUN_SNAPSHOTS.list} FROM ${RUN_SNAPSHOTS.name}`)
      .all()
      .map((row) => parseRow(RUN_SNAPSHOTS.row, row, RUN_SNAPSHOTS.name))
      .map((r): [string, string] => [r.run_id, r.snapshot]);
    const orders = this.db
      .prepare(`SELECT ${ORDER_SNAPSHOTS.list} FROM ${ORDER_SNAPSHOTS.name}`)
      .all()
      .map((row) => parseRow(ORDER_SNAPSHOTS.row, row, ORDER_SNAPSHOTS.name))
      .map((o): [string, string] => [o.order_id, o.snapshot]);
    return sortDump({ runs, orders });
  }
}
