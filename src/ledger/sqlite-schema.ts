/**
 * The SQLite ledger schema. position is the rowid: SQLite has one writer at a time and events are never
 * deleted, so positions are assigned in commit order without gaps. Triggers make the events table
 * append-only even for someone who opens the file with another tool. `extras` keeps an event's top-level keys
 * the seed does not name (JSON, NULL when none); ledgers created before it get the column on open.
 */
export const SQLITE_SCHEMA = `
CREATE TABLE IF NOT EXISTS events (
  position INTEGER PRIMARY KEY,
  event_id TEXT NOT NULL UNIQUE,
  ts TEXT NOT NULL,
  type TEXT NOT NULL,
  garrison_id TEXT NOT NULL,
  theater_id TEXT,
  run_id TEXT,
  order_id TEXT,
  unit_id TEXT,
  payload TEXT NOT NULL,
  extras TEXT
) STRICT;
CREATE INDEX IF NOT EXISTS events_by_run ON events (run_id, position) WHERE run_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_by_order ON events (order_id, position) WHERE order_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_by_type ON events (type, position);
CREATE TRIGGER IF NOT EXISTS events_no_update BEFORE UPDATE ON events
  BEGIN SELECT RAISE(ABORT, 'ledger events are immutable'); END;
CREATE TRIGGER IF NOT EXISTS events_no_delete BEFORE DELETE ON events
  BEGIN SELECT RAISE(ABORT, 'ledger events are immutable'); END;
CREATE TABLE IF NOT EXISTS run_snapshots (run_id TEXT PRIMARY KEY, snapshot TEXT NOT NULL) STRICT, WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS order_snapshots (order_id TEXT PRIMARY KEY, snapshot TEXT NOT NULL) STRICT, WITHOUT ROWID;
`;

export const SQLITE_SYNCHRONOUS = ["FULL", "NORMAL", "OFF"] as const;
export type SqliteSynchronous = (typeof SQLITE_SYNCHRONOUS)[number];
