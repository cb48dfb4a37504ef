import { type AnyTable, columnType, type DialectName, type SqlType } from "./table-schema.js";

/** What differs between the SQL of the two stores; everything else in the DDL is written once, here. */
export interface Dialect {
  name: DialectName;
  /** How the dialect spells each column type. */
  types: Record<SqlType, string>;
  /** A table's or index's name as statements must write it (schema-qualified in PostgreSQL). */
  qualify(name: string): string;
  /** What follows the closing parenthesis of CREATE TABLE. */
  tableOptions(table: AnyTable): string;
  /** Statements that make a table refuse UPDATE and DELETE, whoever connects. */
  appendOnlyGuards(table: AnyTable): string[];
}

/**
 * CREATE TABLE statements, idempotent (IF NOT EXISTS), so the same script creates a new ledger and leaves an
 * existing one as it is. Columns a newer definition adds to an existing table are added between this and
 * indexesSql (see addableColumns), so that an index may name them.
 */
export function tablesSql(tables: readonly AnyTable[], dialect: Dialect): string {
  return script(tables.map((table) => createTable(table, dialect)));
}

/** Each table's indexes and append-only guards, idempotent too; indexes a table no longer defines are dropped. */
export function indexesSql(tables: readonly AnyTable[], dialect: Dialect): string {
  const statements: string[] = [];
  for (const table of tables) {
    for (const index of table.indexes ?? []) {
      if (index.onlyIn !== undefined && index.onlyIn !== dialect.name) {
        statements.push(`DROP INDEX IF EXISTS ${dialect.qualify(index.name)}`);
        continue;
      }
      const where = index.whereNotNull === undefined ? "" : ` WHERE ${index.whereNotNull} IS NOT NULL`;
      statements.push(
        `CREATE INDEX IF NOT EXISTS ${index.name} ON ${dialect.qualify(table.name)} ` +
          `(${index.columns.join(", ")})${where}`,
      );
    }
    for (const name of table.droppedIndexes ?? [])
      statements.push(`DROP INDEX IF EXISTS ${dialect.qualify(name)}`);
    if (table.appendOnly) statements.push(...dialect.appendOnlyGuards(table));
  }
  return script(statements);
}

function script(statements: readonly string[]): string {
  return statements.map((s) => `${s};\n`).join("");
}

function createTable(table: AnyTable, dialect: Dialect): string {
  const unique = new Set<string>(table.unique ?? []);
  const columns = Object.entries(table.columns).map(([name, schema]) => {
    const { type, nullable } = columnType(schema);
    // A primary key is NOT NULL by itself in both dialects.
    const constraint =
      name === table.primaryKey
        ? " PRIMARY KEY"
        : `${nullable ? "" : " NOT NULL"}${unique.has(name) ? " UNIQUE" : ""}`;
    return `  ${name} ${dialect.types[type]}${constraint}`;
  });
  return `CREATE TABLE IF NOT EXISTS ${dialect.qualify(table.name)} (\n${columns.join(",\n")}\n)${dialect.tableOptions(table)}`;
}

/**
 * The nullable columns of a table, as `ALTER TABLE … ADD COLUMN` would name them: a ledger created before a
 * column existed gets it when it opens, and no stored row changes. Only nullable columns can be added this way.
 */
export function addableColumns(
  table: AnyTable,
  dialect: Dialect,
): Array<{ table: string; name: string; type: string }> {
  return Object.entries(table.columns)
    .map(([name, schema]) => ({ name, ...columnType(schema) }))
    .filter((column) => column.nullable)
    .map((column) => ({
      table: dialect.qualify(table.name),
      name: column.name,
      type: dialect.types[column.type],
    }));
}

/** The SQL type of a table's primary key. */
export function keyType(table: AnyTable): SqlType {
  const key = table.columns[table.primaryKey];
  if (key === undefined)
    throw new Error(`table ${table.name}: primary key ${table.primaryKey} is not a column`);
  return columnType(key).type;
}
