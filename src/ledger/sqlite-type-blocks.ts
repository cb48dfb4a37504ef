import type Database from "better-sqlite3";
import { z } from "zod";
import { parseRow } from "./table-schema.js";

/**
 * How the SQLite ledger finds events by type without a (type, position) index. Such an index takes each
 * batch's events at one place per type in it, so a commit of 100 events of ten types dirtied 23 of its pages
 * (of 56 in all), each written to the WAL and again at the checkpoint. Instead, event_type_blocks records
 * which types occur in each block of 1,024 positions: a block's rows are added at the end of the table, once
 * per type per block, so they cost about a page per ten batches. A read by type walks the blocks that hold
 * one of its types, in order, and scans only their positions (a rowid range), until it has its limit.
 *
 * A trigger keeps the table, so every writer keeps it: an older IronClaw opening the file, or another tool.
 */
export const TYPE_BLOCK_SIZE = 1024;
const BLOCK_SHIFT = 10;

export const TYPE_BLOCKS_SQL = `CREATE TABLE IF NOT EXISTS event_type_blocks (
  block INTEGER NOT NULL,
  type TEXT NOT NULL,
  PRIMARY KEY (block, type)
) STRICT, WITHOUT ROWID;
CREATE TRIGGER IF NOT EXISTS events_type_block AFTER INSERT ON events
  BEGIN INSERT OR IGNORE INTO event_type_blocks (block, type) VALUES (new.position >> ${BLOCK_SHIFT}, new.type); END;
`;

/** The index earlier ledgers read types with; where it exists, the blocks may lack events it has seen. */
const OLD_INDEX = "events_by_type";

const EXISTS = z.array(z.looseObject({ name: z.string() }));

/**
 * Creates the table and its trigger, then, in a ledger that still has the old index, records the blocks of
 * every stored event and drops the index. IMMEDIATE, so that a writer in another process cannot slip an event
 * in between; the trigger exists before the backfill, so nothing committed after it is missed either. An
 * older IronClaw that opens the file creates the index again, and with it a reason to run this again.
 */
export function migrateTypeBlocks(db: Database.Database): void {
  db.exec(TYPE_BLOCKS_SQL);
  const hasOldIndex = () =>
    parseRow(
      EXISTS,
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND name = ?").all(OLD_INDEX),
      "sqlite_master",
    ).length > 0;
  if (!hasOldIndex()) return;
  db.transaction(() => {
    if (!hasOldIndex()) return;
    db.exec(
      `INSERT OR IGNORE INTO event_type_blocks (block, type)
         SELECT DISTINCT position >> ${BLOCK_SHIFT}, type FROM events;
       DROP INDEX ${OLD_INDEX};`,
    );
  }).immediate();
}

/** The blocks at or after the one holding position `from` that hold any of `types`, in order. */
export function blocksSql(typeCount: number): string {
  const marks = Array.from({ length: typeCount }, () => "?").join(", ");
  return `SELECT DISTINCT block FROM event_type_blocks WHERE block >= ? AND type IN (${marks}) ORDER BY block`;
}

export const BLOCKS = z.array(z.int().nonnegative());

/** The block that holds a position. */
export function blockOf(position: number): number {
  return Math.floor(position / TYPE_BLOCK_SIZE);
}
