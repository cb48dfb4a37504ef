import { describe, expect, it } from "vitest";
import { CorruptRowError } from "./errors.js";
import { eventFromRow } from "./event-row.js";
import type { RecordedEvent } from "./event-store.js";
import {
  eventFromValues,
  eventValues,
  eventValuesByColumn,
  INSERT_COLUMNS,
  PROJECTED_COLUMNS,
  projectedFromValues,
} from "./event-values.js";
import { EVENTS } from "./ledger-tables.js";
import { parseRow } from "./table-schema.js";

const event: RecordedEvent = {
  event_id: "e1",
  ts: "2026-01-14T16:21:00Z",
  type: "ORDER_STARTED",
  garrison_id: "local",
  theater_id: "demo",
  run_id: "r1",
  order_id: "o1",
  unit_id: "assault_1",
  payload: { attempt: 1, note: "nul \u0000 ✓" },
  source: "worker-7",
  position: 7,
};

/** The row a SELECT of EVENTS.list returns in array mode for what eventValues wrote. */
function selected(e: RecordedEvent): unknown[] {
  const written = new Map(INSERT_COLUMNS.map((name, i) => [name, eventValues(e)[i]]));
  return Object.keys(EVENTS.columns).map((name) => written.get(name));
}

function rejection(row: unknown, read: (row: unknown) => unknown = eventFromValues): CorruptRowError {
  try {
    read(row);
  } catch (error) {
    if (error instanceof CorruptRowError) return error;
    throw error;
  }
  throw new Error("the row was accepted");
}

describe("events rows as arrays of values", () => {
  it("reads back what it writes, every column and unnamed key included", () => {
    expect(new Set(INSERT_COLUMNS)).toEqual(new Set(Object.keys(EVENTS.columns)));
    expect(eventFromValues(selected(event))).toEqual(event);
    const named = Object.fromEntries(Object.keys(EVENTS.columns).map((n, i) => [n, selected(event)[i]]));
    expect(eventFromValues(selected(event))).toEqual(eventFromRow(parseRow(EVENTS.row, named, "events")));
  });

  it("writes each column the value its definition gives, with and without unnamed keys", () => {
    const { source: _source, ...plain } = event;
    for (const e of [event, plain]) expect(eventValues(e)).toEqual(eventValuesByColumn(e));
    expect(eventValues(plain).at(-1)).toBeNull();
  });

  it.each([
    ["position", "7", "$.position"],
    ["position", 2 ** 53, "$.position"],
    ["type", "ORDER CLAIMED", "$.type"],
    ["run_id", 5, "$.run_id"],
    ["garrison_id", null, "$.garrison_id"],
    ["payload", "[1, 2]", "$.payload"],
    ["payload", "not json", "$.payload"],
    ["extras", "7", "$.extras"],
  ])("refuses a row whose %s holds %j, naming the column as the row schema does", (column, value, path) => {
    const row = selected(event);
    row[Object.keys(EVENTS.columns).indexOf(column)] = value;
    const error = rejection(row);
    expect(error.source).toBe("events");
    expect(error.issues.map((i) => i.path)).toEqual([path]);
  });

  it("refuses what is not a row at all", () => {
    expect(rejection("position").issues.length).toBeGreaterThan(0);
    expect(rejection(selected(event).slice(0, 5)).issues.map((i) => i.path)).toContain("$.payload");
  });
});

describe("events rows as the projections read them", () => {
  /** The row a SELECT of PROJECTED_COLUMNS returns in array mode for what eventValues wrote. */
  const projected = (e: RecordedEvent) => {
    const full = selected(e);
    return PROJECTED_COLUMNS.map((name) => full[Object.keys(EVENTS.columns).indexOf(name)]);
  };

  it("gives every field the projections read, as the full read gives it, and nothing else", () => {
    const full = eventFromValues(selected(event));
    const expected = Object.fromEntries(PROJECTED_COLUMNS.map((name) => [name, full[name]]));
    expect(projectedFromValues(projected(event))).toEqual(expected);
    expect(Object.keys(projectedFromValues(projected(event))).sort()).toEqual([...PROJECTED_COLUMNS].sort());
  });

  it.each([
    ["position", "7", "$.position"],
    ["type", "ORDER CLAIMED", "$.type"],
    ["order_id", 5, "$.order_id"],
    ["event_id", null, "$.event_id"],
    ["payload", "not json", "$.payload"],
  ])("refuses a row whose %s holds %j, naming the column", (column, value, path) => {
    const row = projected(event);
    row[PROJECTED_COLUMNS.indexOf(column as (typeof PROJECTED_COLUMNS)[number])] = value;
    const error = rejection(row, projectedFromValues);
    expect(error.source).toBe("events");
    expect(error.issues.map((i) => i.path)).toEqual([path]);
  });
});
