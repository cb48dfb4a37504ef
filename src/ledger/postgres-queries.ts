import type pg from "pg";
import { eventQuerySql } from "./event-query.js";
import { sortDump } from "./event-row.js";
import type { EventQuery, ProjectedEvent, RecordedEvent, SnapshotDump } from "./event-store.js";
import { eventFromValues, PROJECTED_COLUMNS, projectedFromValues } from "./event-values.js";
import { EVENTS, HEAD_ROW, ORDER_SNAPSHOTS, RUN_SNAPSHOTS } from "./ledger-tables.js";
import type { PostgresNames } from "./postgres-schema.js";
import { parseRow } from "./table-schema.js";

/** A pool or one of its clients (inside a transaction): both run queries the same way. */
type Queryable = pg.Pool | pg.PoolClient;

/**
 * The PostgreSQL store's reads, each returning parsed rows. Events are read in array mode, as the SQLite store
 * reads them, and parsed by event-values.ts.
 */
export async function readEvents(
  db: Queryable,
  n: PostgresNames,
  query: EventQuery,
): Promise<RecordedEvent[]> {
  const { sql, params } = eventQuerySql(query, (i) => `$${i}`);
  const text = `SELECT ${EVENTS.list} FROM ${n.events} ${sql}`;
  const { rows } = await db.query({ text, values: params, rowMode: "array" });
  return rows.map((row: unknown) => eventFromValues(row));
}

/** Events after `after` in position order, at most `limit`: the pages a rebuild reads. */
/** Events after `after` in position order, at most `limit`, as the projections read them: a rebuild's pages. */
export async function readProjectionPage(
  db: Queryable,
  n: PostgresNames,
  after: number,
  limit: number,
): Promise<ProjectedEvent[]> {
  const columns = PROJECTED_COLUMNS.join(", ");
  const text = `SELECT ${columns} FROM ${n.events} WHERE position > $1 ORDER BY position LIMIT $2`;
  const { rows } = await db.query({ text, values: [after, limit], rowMode: "array" });
  return rows.map((row: unknown) => projectedFromValues(row));
}

export async function readHead(db: Queryable, n: PostgresNames): Promise<number> {
  const { rows } = await db.query(`SELECT coalesce(max(position), 0) AS head FROM ${n.events}`);
  return parseRow(HEAD_ROW, rows[0], EVENTS.name).head;
}

/** The snapshot column, the same in both snapshot tables. */
const SNAPSHOT_ROW = RUN_SNAPSHOTS.row.pick({ snapshot: true });

/** A snapshot's stored text, or undefined when the stream does not exist. */
export async function readSnapshotText(
  db: Queryable,
  n: PostgresNames,
  kind: "run" | "order",
  id: string,
): Promise<string | undefined> {
  const [table, name] = kind === "run" ? [RUN_SNAPSHOTS, n.runs] : [ORDER_SNAPSHOTS, n.orders];
  const { rows } = await db.query(`SELECT snapshot FROM ${name} WHERE ${kind}_id = $1`, [id]);
  if (rows[0] === undefined) return undefined;
  return parseRow(SNAPSHOT_ROW, rows[0], table.name).snapshot;
}

export async function dumpSnapshots(db: Queryable, n: PostgresNames): Promise<SnapshotDump> {
  const runs = await db.query(`SELECT ${RUN_SNAPSHOTS.list} FROM ${n.runs}`);
  const orders = await db.query(`SELECT ${ORDER_SNAPSHOTS.list} FROM ${n.orders}`);
  return sortDump({
    runs: runs.rows
      .map((row: unknown) => parseRow(RUN_SNAPSHOTS.row, row, RUN_SNAPSHOTS.name))
      .map((r): [string, string] => [r.run_id, r.snapshot]),
    orders: orders.rows
      .map((row: unknown) => parseRow(ORDER_SNAPSHOTS.row, row, ORDER_SNAPSHOTS.name))
      .map((o): [string, string] => [o.order_id, o.snapshot]),
  });
}
