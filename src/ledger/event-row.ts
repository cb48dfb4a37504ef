import type { LedgerEventType } from "../contracts/index.js";
import { canonicalJson } from "../core/index.js";
import type { RecordedEvent, SnapshotDump } from "./event-store.js";

/**
 * The columns both stores keep an event in; the payload is JSON text in SQLite and `json` in PostgreSQL.
 * `extras` holds the event's top-level keys that the seed does not name, as one JSON object (NULL when there
 * are none), so that an event reads back with every key its writer sent.
 */
export interface EventRow {
  position: number | string;
  event_id: string;
  ts: string;
  type: string;
  garrison_id: string;
  theater_id: string | null;
  run_id: string | null;
  order_id: string | null;
  unit_id: string | null;
  payload: string | Record<string, unknown>;
  extras: string | Record<string, unknown> | null;
}

export const EVENT_COLUMNS =
  "position, event_id, ts, type, garrison_id, theater_id, run_id, order_id, unit_id, payload, extras";

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

const parsed = (column: string | Record<string, unknown>) =>
  typeof column === "string" ? (JSON.parse(column) as Record<string, unknown>) : column;

export function eventFromRow(row: EventRow): RecordedEvent {
  return {
    event_id: row.event_id,
    ts: row.ts,
    // Only canonical type names are ever stored: the input contract normalises the seed's typos.
    type: row.type as LedgerEventType,
    garrison_id: row.garrison_id,
    theater_id: row.theater_id,
    run_id: row.run_id,
    order_id: row.order_id,
    unit_id: row.unit_id,
    payload: parsed(row.payload),
    ...(row.extras === null ? {} : parsed(row.extras)),
    position: Number(row.position),
  };
}

/**
 * The same from a row read in raw (array) mode, columns in EVENT_COLUMNS order: rebuilds read every event, and
 * arrays are cheaper to fetch than objects with named keys.
 */
export function eventFromValues(values: readonly unknown[]): RecordedEvent {
  const [position, event_id, ts, type, garrison_id, theater_id, run_id, order_id, unit_id, payload, extras] =
    values;
  return eventFromRow({
    position,
    event_id,
    ts,
    type,
    garrison_id,
    theater_id,
    run_id,
    order_id,
    unit_id,
    payload,
    extras: extras ?? null,
  } as EventRow);
}

/** Snapshots are stored as canonical JSON (RFC 8785), so equal snapshots are equal bytes. */
export function encodeSnapshot(snapshot: object): string {
  return canonicalJson(snapshot);
}

export function decodeSnapshot<T>(json: string): T {
  return JSON.parse(json) as T;
}

/** Orders dump rows by id with a code-unit comparison, independent of any database collation. */
export function sortDump(dump: SnapshotDump): SnapshotDump {
  const byId = (a: [string, string], b: [string, string]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0);
  return { runs: [...dump.runs].sort(byId), orders: [...dump.orders].sort(byId) };
}
