import { LEDGER_TABLES } from "./ledger-tables.js";
import { type Dialect, indexesSql, keyType, tablesSql } from "./table-ddl.js";

/**
 * SQLite's spelling of the ledger tables. Tables are STRICT, so a column holds only its declared type. A table
 * keyed by an integer keeps it as the rowid: events are never deleted and SQLite has one writer at a time, so
 * positions are assigned in commit order without gaps. Tables keyed by text are WITHOUT ROWID, stored in
 * their key's order with no second index. Triggers make a table append-only even for someone who opens the
 * file with another tool.
 */
export const SQLITE_DIALECT: Dialect = {
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

/** The ledger's tables; the store adds columns older ledgers lack before it creates the indexes. */
export const SQLITE_TABLES = tablesSql(LEDGER_TABLES, SQLITE_DIALECT);
export const SQLITE_INDEXES = indexesSql(LEDGER_TABLES, SQLITE_DIALECT);

export const SQLITE_SYNCHRONOUS = ["FULL", "NORMAL", "OFF"] as const;
export type SqliteSynchronous = (typeof SQLITE_SYNCHRONOUS)[number];
