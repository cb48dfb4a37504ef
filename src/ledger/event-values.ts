import type { LedgerEventType } from "../contracts/index.js";
import { eventFromRow, extrasOf } from "./event-row.js";
import type { ProjectedEvent, RecordedEvent } from "./event-store.js";
import { EVENTS } from "./ledger-tables.js";
import { isJsonObjectText, parseRow } from "./table-schema.js";

/**
 * Events rows as arrays of values in the table's column order, both ways: what an INSERT binds, and what a
 * query in array mode returns. Reads fetch rows as arrays because they are much cheaper to fetch than objects
 * with named keys; a rebuild reads every event.
 */
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

/**
 * An event's INSERT values, in INSERT_COLUMNS order. Written out rather than mapped over EVENT_VALUES, which
 * costs a call per column on every stored event; event-values.test.ts holds the two to the same values.
 */
export function eventValues(e: RecordedEvent): SqlValue[] {
  return [
    e.position,
    e.event_id,
    e.ts,
    e.type,
    e.garrison_id,
    e.theater_id,
    e.run_id,
    e.order_id,
    e.unit_id,
    JSON.stringify(e.payload),
    extrasOf(e),
  ];
}

/** Each column's value through EVENT_VALUES, the definition eventValues must agree with. */
export function eventValuesByColumn(event: RecordedEvent): SqlValue[] {
  return VALUE_OF.map((value) => value(event));
}

/** Each column's values over a list of events: the arrays PostgreSQL's unnest() takes. */
export function eventColumns(events: readonly RecordedEvent[]): SqlValue[][] {
  return VALUE_OF.map((value) => events.map(value));
}

const NAMES = Object.keys(EVENTS.columns);
const column = (name: keyof typeof EVENTS.columns) => NAMES.indexOf(name);
const [GARRISON, EXTRAS] = [column("garrison_id"), column("extras")];
const TYPES: ReadonlySet<string> = new Set(EVENTS.columns.type.options);

const isType = (value: unknown): value is LedgerEventType => typeof value === "string" && TYPES.has(value);
const isText = (value: unknown): value is string => typeof value === "string";
const isTextOrNull = (value: unknown): value is string | null => value === null || typeof value === "string";

/** The columns a rebuild reads, in the order projectedFromValues takes their values. */
export const PROJECTED_COLUMNS = [
  "position",
  "event_id",
  "ts",
  "type",
  "theater_id",
  "run_id",
  "order_id",
  "unit_id",
  "payload",
] as const satisfies ReadonlyArray<keyof ProjectedEvent>;

type ProjectedColumn = (typeof PROJECTED_COLUMNS)[number];

const PROJECTED_ROW = EVENTS.row.pick(
  Object.fromEntries(PROJECTED_COLUMNS.map((name) => [name, true])) as { [K in ProjectedColumn]: true },
);

/**
 * Where each projected column stands in a row read in array mode, in PROJECTED_COLUMNS order: a small array of
 * numbers, which a property lookup per column on the rebuild's path would cost more than.
 */
type ColumnPlaces = readonly number[];
const IN_FULL_ROW: ColumnPlaces = PROJECTED_COLUMNS.map((name) => column(name));
const IN_PROJECTED_ROW: ColumnPlaces = PROJECTED_COLUMNS.map((_, i) => i);

/**
 * The projected columns of a row read in array mode, each checked against its column with plain type checks;
 * undefined when any does not fit, and the caller hands the row to its schema, which refuses it naming every
 * column that does not fit (CorruptRowError), so both paths accept exactly the same rows.
 */
function projectedColumns(values: readonly unknown[], at: ColumnPlaces): ProjectedEvent | undefined {
  const position = values[at[0] as number];
  const id = values[at[1] as number];
  const ts = values[at[2] as number];
  const type = values[at[3] as number];
  const theater = values[at[4] as number];
  const run = values[at[5] as number];
  const order = values[at[6] as number];
  const unit = values[at[7] as number];
  const payload = isJsonObjectText(values[at[8] as number]);
  if (
    Number.isSafeInteger(position) &&
    typeof position === "number" &&
    isText(id) &&
    isText(ts) &&
    isType(type) &&
    isTextOrNull(theater) &&
    isTextOrNull(run) &&
    isTextOrNull(order) &&
    isTextOrNull(unit) &&
    payload !== undefined
  )
    return {
      position,
      event_id: id,
      ts,
      type,
      theater_id: theater,
      run_id: run,
      order_id: order,
      unit_id: unit,
      payload,
    };
  return undefined;
}

/**
 * An events row read in array mode, columns in definition order (anything but an array goes to the schema),
 * checked as projectedColumns checks, garrison_id and extras included.
 */
export function eventFromValues(row: unknown): RecordedEvent {
  if (!Array.isArray(row)) return eventFromRow(parseRow(EVENTS.row, row, EVENTS.name));
  const values: readonly unknown[] = row;
  const e = projectedColumns(values, IN_FULL_ROW);
  const garrison = values[GARRISON];
  const extras = values[EXTRAS] === null ? null : isJsonObjectText(values[EXTRAS]);
  if (e !== undefined && isText(garrison) && extras !== undefined) {
    // Most events have no unnamed keys: a plain literal is cheaper than a spread; both put position last.
    if (extras === null)
      return {
        event_id: e.event_id,
        ts: e.ts,
        type: e.type,
        garrison_id: garrison,
        theater_id: e.theater_id,
        run_id: e.run_id,
        order_id: e.order_id,
        unit_id: e.unit_id,
        payload: e.payload,
        position: e.position,
      };
    return {
      event_id: e.event_id,
      ts: e.ts,
      type: e.type,
      garrison_id: garrison,
      theater_id: e.theater_id,
      run_id: e.run_id,
      order_id: e.order_id,
      unit_id: e.unit_id,
      payload: e.payload,
      ...extras,
      position: e.position,
    };
  }
  const named = Object.fromEntries(NAMES.map((name, i) => [name, values[i]]));
  return eventFromRow(parseRow(EVENTS.row, named, EVENTS.name));
}

/** A row of PROJECTED_COLUMNS read in array mode (anything but an array goes to the columns' schema). */
export function projectedFromValues(row: unknown): ProjectedEvent {
  if (!Array.isArray(row)) return parseRow(PROJECTED_ROW, row, EVENTS.name);
  const values: readonly unknown[] = row;
  const projected = projectedColumns(values, IN_PROJECTED_ROW);
  if (projected !== undefined) return projected;
  const named = Object.fromEntries(PROJECTED_COLUMNS.map((name, i) => [name, values[i]]));
  return parseRow(PROJECTED_ROW, named, EVENTS.name);
}
