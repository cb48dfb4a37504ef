import { z } from "zod";
import {
  decodeOrderSnapshot,
  decodeRunSnapshot,
  encodeSnapshot,
  eventColumns,
  eventFromRow,
  INSERT_COLUMNS,
} from "./event-row.js";
import type { RecordedEvent } from "./event-store.js";
import { EVENTS } from "./ledger-tables.js";
import { type PostgresNames, postgresDialect } from "./postgres-schema.js";
import { SnapshotSet } from "./projection.js";
import type { OrderSnapshot, RunSnapshot } from "./snapshot.js";
import { columnType, parseJsonText, parseRow } from "./table-schema.js";

/**
 * The two statements of a PostgreSQL append besides BEGIN/lock and COMMIT. Every round trip is paid once per
 * append while the ledger lock is held, so what the append needs to read is one statement, and what it writes
 * is another.
 */
export interface Statement {
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

/** An events row as one JSON object whose JSON columns stay text, so it parses with the table's row schema. */
function eventJsonSql(): string {
  const fields = Object.entries(EVENTS.columns).map(([name, schema]) =>
    columnType(schema).type === "json" ? `'${name}', ${name}::text` : `'${name}', ${name}`,
  );
  return `json_build_object(${fields.join(", ")})::text`;
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

export function parseState(rows: readonly unknown[]): AppendState {
  const state: AppendState = { head: 0, stored: new Map(), snapshots: new SnapshotSet() };
  for (const value of rows) {
    const row = parseRow(STATE_ROW, value, "the append state read");
    if (row.kind === "head") state.head = parseRow(HEAD, parseJsonText(row.body), "events head");
    else if (row.kind === "run") state.snapshots.runs.set(row.id, decodeRunSnapshot(row.body));
    else if (row.kind === "order") state.snapshots.orders.set(row.id, decodeOrderSnapshot(row.body));
    else state.stored.set(row.id, eventFromRow(parseRow(EVENTS.row, parseJsonText(row.body), EVENTS.name)));
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

/**
 * Inserts the new events, upserts the given snapshots and, when `head` is given, announces it with NOTIFY,
 * which PostgreSQL delivers only if the transaction commits. Data-modifying CTEs always run to completion,
 * whether or not the final SELECT reads them.
 */
export function writeStatement(
  n: PostgresNames,
  events: readonly RecordedEvent[],
  snapshots: { runs: readonly RunSnapshot[]; orders: readonly OrderSnapshot[] },
  head?: number,
): Statement {
  const k = INSERT_COLUMNS.length;
  const p = (i: number) => `$${k + i}`;
  return {
    text: `WITH new_events AS (
        INSERT INTO ${n.events} (${INSERT_COLUMNS.join(", ")}) SELECT * FROM unnest(${unnestArguments(n)})
      ), runs AS (
        INSERT INTO ${n.runs} (run_id, snapshot) SELECT * FROM unnest(${p(1)}::text[], ${p(2)}::text[])
        ON CONFLICT (run_id) DO UPDATE SET snapshot = excluded.snapshot
      ), orders AS (
        INSERT INTO ${n.orders} (order_id, snapshot) SELECT * FROM unnest(${p(3)}::text[], ${p(4)}::text[])
        ON CONFLICT (order_id) DO UPDATE SET snapshot = excluded.snapshot
      )
      SELECT CASE WHEN ${p(5)}::text IS NULL THEN NULL ELSE pg_notify(${p(6)}, ${p(5)}::text) END`,
    values: [
      ...eventColumns(events),
      snapshots.runs.map((r) => r.run_id),
      snapshots.runs.map(encodeSnapshot),
      snapshots.orders.map((o) => o.order_id),
      snapshots.orders.map(encodeSnapshot),
      head === undefined ? null : String(head),
      n.channel,
    ],
  };
}
