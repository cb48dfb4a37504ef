import type Database from "better-sqlite3";
import { z } from "zod";
import { LEDGER_TABLES } from "./ledger-tables.js";
import { migrateTypeBlocks } from "./sqlite-type-blocks.js";
import { addableColumns, type Dialect, indexesSql, keyType, tablesSql } from "./table-ddl.js";
import { parseRow } from "./table-schema.js";

/**
 * SQLite's spelling of the ledger tables. Tables are STRICT, so a column holds only its declared type. A table
 * keyed by an integer keeps it as the rowid: events are never deleted and SQLite has one writer at a time, so
 * positions are assigned in commit order without gaps. Tables keyed by text are WITHOUT ROWID, stored in
 * their key's order with no second index. Triggers make a table append-only even for someone who opens the
 * file with another tool.
 */
export const SQLITE_DIALECT: Dialect = {
  name: "sqlite",
  types: { integer: "INTEGER", text: "TEXT", json: "TEXT" },
  qualify: (name) => name,
  tableOptions: (table) => (keyType(table) === "integer" ? " STRICT" : " STRICT, WITHOUT ROWID"),
  appendOnlyGuards: (table) =>
    (["update", "delete"] as const).map(
      (change) =>
        `CREATE TRIGGER IF NOT EXISTS ${table.name}_no_${change} BEFORE ${change.toUpperCase()} ON ${table.name}\n` +
        `  BEGIN SELECT RAISE(ABORT, 'ledger ${table.name} are immutable'); END`,
    ),
};

export const SQLITE_TABLES = tablesSql(LEDGER_TABLES, SQLITE_DIALECT);
export const SQLITE_INDEXES = indexesSql(LEDGER_TABLES, SQLITE_DIALECT);

/**
 * Creates the ledger's tables, adds the columns an older ledger lacks, replaces its type index by type blocks
 * (before the indexes, which drop that index), then its indexes and guards.
 */
export function createSqliteSchema(db: Database.Database): void {
  db.exec(SQLITE_TABLES);
  addMissingColumns(db);
  migrateTypeBlocks(db);
  db.exec(SQLITE_INDEXES);
}

const TABLE_INFO = z.array(z.looseObject({ name: z.string() }));

/**
 * Ledgers created before a nullable column existed (events.extras) lack it; adding it rewrites no row.
 * IMMEDIATE, so that two processes opening the same old ledger do not both add it.
 */
function addMissingColumns(db: Database.Database): void {
  const missing = () =>
    LEDGER_TABLES.flatMap((table) => {
      const info = parseRow(TABLE_INFO, db.pragma(`table_info(${table.name})`), `table_info(${table.name})`);
      const present = new Set(info.map((c) => c.name));
      return addableColumns(table, SQLITE_DIALECT).filter((c) => !present.has(c.name));
    });
  if (missing().length === 0) return;
  db.transaction(() => {
    for (const c of missing()) db.exec(`ALTER TABLE ${c.table} ADD COLUMN ${c.name} ${c.type}`);
  }).immediate();
}

export const SQLITE_SYNCHRONOUS = ["FULL", "NORMAL", "OFF"] as const;
export type SqliteSynchronous = (typeof SQLITE_SYNCHRONOUS)[number];
