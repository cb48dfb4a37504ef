import { z } from "zod";
import { LEDGER_EVENT_TYPES } from "../contracts/index.js";
import { defineTable, integer, json, type RowOf, text } from "./table-schema.js";

/**
 * The ledger's tables, defined once for both stores. Names are those of every ledger written so far, so that
 * existing databases open unchanged; a column added later must be nullable, and is added to older tables when
 * they open.
 *
 * events: position is the global order (SQLite's rowid; assigned under a lock in PostgreSQL, see
 * postgres-store.ts). Only canonical type names are stored: the input contract normalises the seed's typos.
 * `extras` holds the event's top-level keys the seed does not name, as one JSON object (NULL when there are
 * none), so an event reads back with every key its writer sent.
 */
export const EVENTS = defineTable({
  name: "events",
  columns: {
    position: integer(),
    event_id: text(),
    ts: text(),
    type: text(z.enum(LEDGER_EVENT_TYPES)),
    garrison_id: text(),
    theater_id: text().nullable(),
    run_id: text().nullable(),
    order_id: text().nullable(),
    unit_id: text().nullable(),
    payload: json(),
    extras: json().nullable(),
  },
  primaryKey: "position",
  // The idempotency lookup of every append with a writer-chosen id.
  unique: ["event_id"],
  // Every read filter (GET /events?run_id|order_id|type, `ledger tail --run|--order|--type`, subscriptions)
  // has an index that ends in position, so a filtered read walks only its own stream, in order. SQLite finds
  // a type through event_type_blocks instead (sqlite-type-blocks.ts): a batch's events of ten types land in
  // ten places of a (type, position) index, which made it a third of the pages every commit writes.
  indexes: [
    { name: "events_by_run", columns: ["run_id", "position"], whereNotNull: "run_id" },
    { name: "events_by_order", columns: ["order_id", "position"], whereNotNull: "order_id" },
    { name: "events_by_type", columns: ["type", "position"], onlyIn: "postgres" },
  ],
  appendOnly: true,
});

/** A run's snapshot as canonical JSON (RFC 8785), so equal snapshots are equal bytes. */
export const RUN_SNAPSHOTS = defineTable({
  name: "run_snapshots",
  columns: { run_id: text(), snapshot: text() },
  primaryKey: "run_id",
});

export const ORDER_SNAPSHOTS = defineTable({
  name: "order_snapshots",
  columns: { order_id: text(), snapshot: text() },
  primaryKey: "order_id",
});

export const LEDGER_TABLES = [EVENTS, RUN_SNAPSHOTS, ORDER_SNAPSHOTS] as const;

export type EventsRow = RowOf<typeof EVENTS>;

/** `SELECT coalesce(max(position), 0) AS head`: the head of either store. */
export const HEAD_ROW = z.object({ head: integer() });
