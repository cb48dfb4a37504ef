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
const [POSITION, EVENT_ID, TS, TYPE, GARRISON, THEATER, RUN, ORDER, UNIT, PAYLOAD, EXTRAS] = [
  column("position"),
  column("event_id"),
  column("ts"),
  column("type"),
  column("garrison_id"),
  column("theater_id"),
  column("run_id"),
  column("order_id"),
  column("unit_id"),
  column("payload"),
  column("extras"),
];
const TYPES: ReadonlySet<string> = new Set(EVENTS.columns.type.options);

const isType = (value: unknown): value is LedgerEventType => typeof value === "string" && TYPES.has(value);
const isText = (value: unknown): value is string => typeof value === "string";
const isTextOrNull = (value: unknown): value is string | null => value === null || typeof value === "string";

/**
 * An events row read in array mode, columns in definition order (anything but an array goes to the schema). Each value is checked against its column with
 * plain type checks; a row that fails any is handed to the table's row schema, which refuses it naming every
 * column that does not fit (CorruptRowError), so both paths accept exactly the same rows.
 */
export function eventFromValues(row: unknown): RecordedEvent {
  if (!Array.isArray(row)) return eventFromRow(parseRow(EVENTS.row, row, EVENTS.name));
  const values: readonly unknown[] = row;
  const position = values[POSITION];
  const id = values[EVENT_ID];
  const ts = values[TS];
  const type = values[TYPE];
  const garrison = values[GARRISON];
  const theater = values[THEATER];
  const run = values[RUN];
  const order = values[ORDER];
  const unit = values[UNIT];
  const payload = isJsonObjectText(values[PAYLOAD]);
  const extras = values[EXTRAS] === null ? null : isJsonObjectText(values[EXTRAS]);
  if (
    Number.isSafeInteger(position) &&
    typeof position === "number" &&
    isText(id) &&
    isText(ts) &&
    isType(type) &&
    isText(garrison) &&
    isTextOrNull(theater) &&
    isTextOrNull(run) &&
    isTextOrNull(order) &&
    isTextOrNull(unit) &&
    payload !== undefined &&
    extras !== undefined
  ) {
    // Most events have no unnamed keys: a plain literal is cheaper than a spread; both put position last.
    if (extras === null)
      return {
        event_id: id,
        ts,
        type,
        garrison_id: garrison,
        theater_id: theater,
        run_id: run,
        order_id: order,
        unit_id: unit,
        payload,
        position,
      };
    return {
      event_id: id,
      ts,
      type,
      garrison_id: garrison,
      theater_id: theater,
      run_id: run,
      order_id: order,
      unit_id: unit,
      payload,
      ...extras,
      position,
    };
  }
  const named = Object.fromEntries(NAMES.map((name, i) => [name, values[i]]));
  return eventFromRow(parseRow(EVENTS.row, named, EVENTS.name));
}

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
] as const satisfies ReadonlyArray<keyof typeof EVENTS.columns>;

const PROJECTED_ROW = EVENTS.row.pick({
  position: true,
  event_id: true,
  ts: true,
  type: true,
  theater_id: true,
  run_id: true,
  order_id: true,
  unit_id: true,
  payload: true,
});

/**
 * A row of PROJECTED_COLUMNS read in array mode, checked like eventFromValues: plain type checks, and a row that
 * fails any goes to the columns' schema, which refuses it naming every column that does not fit.
 */
export function projectedFromValues(row: unknown): ProjectedEvent {
  if (Array.isArray(row)) {
    const [position, id, ts, type, theater, run, order, unit, text] = row as unknown[];
    const payload = isJsonObjectText(text);
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
  }
  const named = Array.isArray(row)
    ? Object.fromEntries(PROJECTED_COLUMNS.map((name, i) => [name, (row as unknown[])[i]]))
    : row;
  return parseRow(PROJECTED_ROW, named, EVENTS.name);
}
