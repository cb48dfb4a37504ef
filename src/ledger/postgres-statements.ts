import { z } from "zod";
import type { RecordedEvent } from "./event-store.js";
import { eventColumns, eventFromValues, INSERT_COLUMNS } from "./event-values.js";
import { EVENTS } from "./ledger-tables.js";
import { LOCK_CLASS, type PostgresNames, postgresDialect } from "./postgres-schema.js";
import { SnapshotSet } from "./projection.js";
import type { EncodedSnapshots, SnapshotCaches } from "./snapshot-cache.js";
import { columnType, parseJsonText, parseRow } from "./table-schema.js";

/**
 * The two statements of a PostgreSQL append besides BEGIN/lock and COMMIT. Every round trip is paid once per
 * append while the ledger lock is held, so what the append needs to read is one statement, and what it writes
 * is another.
 */
export interface Statement {
  /** Prepared once per connection under this name, so the server parses and plans it once. */
  name?: string;
  text: string;
  values: unknown[];
}

export interface AppendState {
  head: number;
  /** Earlier copies of the given event_ids. */
  stored: Map<string, RecordedEvent>;
  snapshots: SnapshotSet;
}

/** One row of the state read: what it is, its id, and its body as JSON text. */
const STATE_ROW = z.object({
  kind: z.enum(["head", "run", "order", "event"]),
  id: z.string(),
  body: z.string(),
});

/** An events row as one JSON array in column order, JSON columns as text, read as event-values.ts reads rows. */
function eventJsonSql(): string {
  const fields = Object.entries(EVENTS.columns).map(([name, schema]) =>
    columnType(schema).type === "json" ? `${name}::text` : name,
  );
  return `json_build_array(${fields.join(", ")})::text`;
}
const EVENT_JSON = eventJsonSql();

/**
 * The head, the snapshots of the named runs and orders, and the stored copies of the given event_ids, tagged
 * by kind. It must run after the lock is taken, as its own statement, so that its snapshot includes every
 * append committed before ours.
 */
export function readStateStatement(
  n: PostgresNames,
  ids: { runIds: string[]; orderIds: string[]; eventIds: string[] },
): Statement {
  return {
    text: `SELECT 'head' AS kind, '' AS id, to_json(coalesce(max(position), 0))::text AS body FROM ${n.events}
      UNION ALL SELECT 'run', run_id, snapshot FROM ${n.runs} WHERE run_id = ANY($1::text[])
      UNION ALL SELECT 'order', order_id, snapshot FROM ${n.orders} WHERE order_id = ANY($2::text[])
      UNION ALL SELECT 'event', event_id, ${EVENT_JSON} FROM ${n.events} WHERE event_id = ANY($3::text[])`,
    values: [ids.runIds, ids.orderIds, ids.eventIds],
  };
}

const HEAD = z.int().nonnegative();

/**
 * The rows of the state read; snapshots come from `caches` when their stored text is the one seen last, and
 * are noted there as seen at the head this read found.
 */
export function parseState(values: readonly unknown[], caches: SnapshotCaches): AppendState {
  const rows = values.map((value) => parseRow(STATE_ROW, value, "the append state read"));
  const headRow = rows.find((row) => row.kind === "head");
  const head = headRow === undefined ? 0 : parseRow(HEAD, parseJsonText(headRow.body), "events head");
  const state: AppendState = { head, stored: new Map(), snapshots: new SnapshotSet() };
  for (const row of rows) {
    if (row.kind === "run") state.snapshots.runs.set(row.id, caches.runs.read(row.id, row.body, head));
    else if (row.kind === "order")
      state.snapshots.orders.set(row.id, caches.orders.read(row.id, row.body, head));
    else if (row.kind === "event") state.stored.set(row.id, eventFromValues(parseJsonText(row.body)));
  }
  return state;
}

/** `$1::bigint[], $2::text[], …`: the events columns as unnest() arguments, typed as the table defines them. */
function unnestArguments(n: PostgresNames): string {
  const types = postgresDialect(n).types;
  const typeOf = new Map(
    Object.entries(EVENTS.columns).map(([name, schema]) => [name, columnType(schema).type]),
  );
  return INSERT_COLUMNS.map((name, i) => `$${i + 1}::${types[typeOf.get(name) ?? "text"]}[]`).join(", ");
}

/** What one write statement stores. */
export interface WriteSpec {
  events: readonly RecordedEvent[];
  /** Snapshots that may be stored already: upserted. */
  upserts: EncodedSnapshots;
  /** Snapshots the append takes to be new: plainly inserted, so that finding one stored fails the statement. */
  inserts?: EncodedSnapshots;
  /** The head to announce with NOTIFY, which PostgreSQL delivers only if the transaction commits. */
  head?: number;
}

const NONE: EncodedSnapshots = { runs: [], orders: [] };

/**
 * Inserts the new events and stores the snapshots. The statement takes the ledger's advisory lock before it
 * writes a row, so it can be an append on its own, in one round trip (postgres-append.ts); inside a
 * transaction that holds the lock already, taking it again changes nothing. Data-modifying CTEs always run to
 * completion, whether or not the final SELECT reads them. One text per ledger, prepared once per connection.
 */
export function writeStatement(n: PostgresNames, spec: WriteSpec): Statement {
  const k = INSERT_COLUMNS.length;
  const p = (i: number) => `$${k + i}`;
  const snapshots = (table: string, key: string, at: number, upsert: boolean) =>
    `INSERT INTO ${table} (${key}, snapshot) SELECT s.* FROM ledger_lock, unnest(${p(at)}::text[], ${p(at + 1)}::text[]) AS s` +
    (upsert ? ` ON CONFLICT (${key}) DO UPDATE SET snapshot = excluded.snapshot` : "");
  const inserts = spec.inserts ?? NONE;
  return {
    name: `ledger_write_${n.schema}`,
    text: `WITH ledger_lock AS (SELECT pg_advisory_xact_lock(${LOCK_CLASS}, ${n.lockKey})),
      new_events AS (
        INSERT INTO ${n.events} (${INSERT_COLUMNS.join(", ")})
        SELECT e.* FROM ledger_lock, unnest(${unnestArguments(n)}) AS e
      ),
      runs AS (${snapshots(n.runs, "run_id", 1, true)}),
      new_runs AS (${snapshots(n.runs, "run_id", 3, false)}),
      orders AS (${snapshots(n.orders, "order_id", 5, true)}),
      new_orders AS (${snapshots(n.orders, "order_id", 7, false)})
      SELECT CASE WHEN ${p(9)}::text IS NULL THEN NULL ELSE pg_notify(${p(10)}, ${p(9)}::text) END FROM ledger_lock`,
    values: [
      ...eventColumns(spec.events),
      spec.upserts.runs.map((r) => r.snapshot.run_id),
      spec.upserts.runs.map((r) => r.text),
      inserts.runs.map((r) => r.snapshot.run_id),
      inserts.runs.map((r) => r.text),
      spec.upserts.orders.map((o) => o.snapshot.order_id),
      spec.upserts.orders.map((o) => o.text),
      inserts.orders.map((o) => o.snapshot.order_id),
      inserts.orders.map((o) => o.text),
      spec.head === undefined ? null : String(spec.head),
      n.channel,
    ],
  };
}
