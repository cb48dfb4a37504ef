import type { RecordedEvent, SnapshotDump } from "./event-store.js";
import type { EventsRow } from "./ledger-tables.js";
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
  let extra: Record<string, unknown> | undefined;
  for (const key of Object.keys(event)) {
    if (BASE_FIELDS.has(key)) continue;
    extra ??= {};
    extra[key] = event[key];
  }
  return extra === undefined ? null : JSON.stringify(extra);
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
