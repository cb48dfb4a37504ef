import { canonicalJson } from "../core/index.js";
import type { RecordedEvent, SnapshotDump } from "./event-store.js";
import type { EVENTS, EventsRow } from "./ledger-tables.js";
import { type OrderSnapshot, orderSnapshotSchema, type RunSnapshot, runSnapshotSchema } from "./snapshot.js";
import { parseJsonText, parseRow } from "./table-schema.js";

const BASE_FIELDS: ReadonlySet<string> = new Set([
  "event_id",
  "ts",
  "type",
  "garrison_id",
  "theater_id",
  "run_id",
  "order_id",
  "unit_id",
  "payload",
  "position",
]);

/** The `extras` column of an event: its keys outside the base fields as JSON text, or null when it has none. */
export function extrasOf(event: Record<string, unknown>): string | null {
  const extra = Object.entries(event).filter(([key]) => !BASE_FIELDS.has(key));
  return extra.length === 0 ? null : JSON.stringify(Object.fromEntries(extra));
}

export type SqlValue = string | number | null;

/**
 * How each column of the events table is filled from an event. The type makes every column of the table
 * definition appear here, and INSERT statements list the columns in this object's order, so the values
 * always line up with their columns.
 */
const EVENT_VALUES: { [K in keyof typeof EVENTS.columns]: (e: RecordedEvent) => SqlValue } = {
  position: (e) => e.position,
  event_id: (e) => e.event_id,
  ts: (e) => e.ts,
  type: (e) => e.type,
  garrison_id: (e) => e.garrison_id,
  theater_id: (e) => e.theater_id,
  run_id: (e) => e.run_id,
  order_id: (e) => e.order_id,
  unit_id: (e) => e.unit_id,
  payload: (e) => JSON.stringify(e.payload),
  extras: extrasOf,
};

/** The columns an INSERT INTO events names, in the order eventValues gives their values. */
export const INSERT_COLUMNS: readonly string[] = Object.keys(EVENT_VALUES);
const VALUE_OF: ReadonlyArray<(e: RecordedEvent) => SqlValue> = Object.values(EVENT_VALUES);

export function eventValues(event: RecordedEvent): SqlValue[] {
  return VALUE_OF.map((value) => value(event));
}

/** Each column's values over a list of events: the arrays PostgreSQL's unnest() takes. */
export function eventColumns(events: readonly RecordedEvent[]): SqlValue[][] {
  return VALUE_OF.map((value) => events.map(value));
}

/** An event as the ledger serves it, from its parsed row: the base fields, then its unnamed keys. */
export function eventFromRow(row: EventsRow): RecordedEvent {
  return {
    event_id: row.event_id,
    ts: row.ts,
    type: row.type,
    garrison_id: row.garrison_id,
    theater_id: row.theater_id,
    run_id: row.run_id,
    order_id: row.order_id,
    unit_id: row.unit_id,
    payload: row.payload,
    ...row.extras,
    position: row.position,
  };
}

/** Snapshots are stored as canonical JSON (RFC 8785), so equal snapshots are equal bytes. */
export function encodeSnapshot(snapshot: object): string {
  return canonicalJson(snapshot);
}

/** A stored snapshot, checked against the contract it is served under. */
export function decodeRunSnapshot(json: string): RunSnapshot {
  return parseRow(runSnapshotSchema, parseJsonText(json), "run_snapshots.snapshot");
}

export function decodeOrderSnapshot(json: string): OrderSnapshot {
  return parseRow(orderSnapshotSchema, parseJsonText(json), "order_snapshots.snapshot");
}

/** Orders dump rows by id with a code-unit comparison, independent of any database collation. */
export function sortDump(dump: SnapshotDump): SnapshotDump {
  const byId = (a: [string, string], b: [string, string]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  return { runs: [...dump.runs].sort(byId), orders: [...dump.orders].sort(byId) };
}
