import { decodeSnapshot, EVENT_COLUMNS, encodeSnapshot, eventFromValues, extrasOf } from "./event-row.js";
import type { RecordedEvent } from "./event-store.js";
import type { PostgresNames } from "./postgres-schema.js";
import { SnapshotSet } from "./projection.js";
import type { OrderSnapshot, RunSnapshot } from "./snapshot.js";

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

export type StateRow = { kind: "head" | "run" | "order" | "event"; id: string; body: string };

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
    text: `SELECT 'head' AS kind, '' AS id, coalesce(max(position), 0)::text AS body FROM ${n.events}
      UNION ALL SELECT 'run', run_id, snapshot FROM ${n.runs} WHERE run_id = ANY($1::text[])
      UNION ALL SELECT 'order', order_id, snapshot FROM ${n.orders} WHERE order_id = ANY($2::text[])
      UNION ALL SELECT 'event', event_id, json_build_array(${EVENT_COLUMNS})::text
        FROM ${n.events} WHERE event_id = ANY($3::text[])`,
    values: [ids.runIds, ids.orderIds, ids.eventIds],
  };
}

export function parseState(rows: readonly StateRow[]): AppendState {
  const state: AppendState = { head: 0, stored: new Map(), snapshots: new SnapshotSet() };
  for (const row of rows) {
    if (row.kind === "head") state.head = Number(row.body);
    else if (row.kind === "run") state.snapshots.runs.set(row.id, decodeSnapshot<RunSnapshot>(row.body));
    else if (row.kind === "order")
      state.snapshots.orders.set(row.id, decodeSnapshot<OrderSnapshot>(row.body));
    else state.stored.set(row.id, eventFromValues(JSON.parse(row.body) as unknown[]));
  }
  return state;
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
  return {
    text: `WITH new_events AS (
        INSERT INTO ${n.events} (${EVENT_COLUMNS})
        SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[],
                             $7::text[], $8::text[], $9::text[], $10::json[], $11::json[])
      ), runs AS (
        INSERT INTO ${n.runs} (run_id, snapshot) SELECT * FROM unnest($12::text[], $13::text[])
        ON CONFLICT (run_id) DO UPDATE SET snapshot = excluded.snapshot
      ), orders AS (
        INSERT INTO ${n.orders} (order_id, snapshot) SELECT * FROM unnest($14::text[], $15::text[])
        ON CONFLICT (order_id) DO UPDATE SET snapshot = excluded.snapshot
      )
      SELECT CASE WHEN $16::text IS NULL THEN NULL ELSE pg_notify($17, $16::text) END`,
    values: [
      events.map((e) => e.position),
      events.map((e) => e.event_id),
      events.map((e) => e.ts),
      events.map((e) => e.type),
      events.map((e) => e.garrison_id),
      events.map((e) => e.theater_id),
      events.map((e) => e.run_id),
      events.map((e) => e.order_id),
      events.map((e) => e.unit_id),
      events.map((e) => JSON.stringify(e.payload)),
      events.map(extrasOf),
      snapshots.runs.map((r) => r.run_id),
      snapshots.runs.map(encodeSnapshot),
      snapshots.orders.map((o) => o.order_id),
      snapshots.orders.map(encodeSnapshot),
      head === undefined ? null : String(head),
      n.channel,
    ],
  };
}

/** The snapshots an append changed, or every snapshot of a rebuild. */
export function snapshotsOf(set: SnapshotSet, which: "changed" | "all") {
  const runIds = which === "all" ? set.runs.keys() : set.changedRuns;
  const orderIds = which === "all" ? set.orders.keys() : set.changedOrders;
  return {
    runs: [...runIds].map((id) => set.runs.get(id) as RunSnapshot),
    orders: [...orderIds].map((id) => set.orders.get(id) as OrderSnapshot),
  };
}
