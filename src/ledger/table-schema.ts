import { z } from "zod";
import { isJsonObject } from "../contracts/index.js";
import { issuesFromZod } from "../core/index.js";
import { CorruptRowError } from "./errors.js";

/**
 * A ledger table is defined once, as zod column schemas that also carry their SQL type: the same definition
 * generates the DDL of both dialects (table-ddl.ts) and parses every row a query returns. Both drivers hand
 * over the same JavaScript values: numbers for integers, strings for text and for JSON (the PostgreSQL store
 * asks its driver for json as text and int8 as numbers), so one schema reads rows from either.
 */
export type SqlType = "integer" | "text" | "json";

const sqlTypes = new WeakMap<z.core.$ZodType, SqlType>();

function column<S extends z.ZodType>(schema: S, type: SqlType): S {
  sqlTypes.set(schema, type);
  return schema;
}

/** A safe integer: positions and counts, `bigint` in PostgreSQL. */
export const integer = () => column(z.int(), "integer");

/** A text column; `schema` narrows what a stored value may be (an enum, say). */
export function text(): z.ZodString;
export function text<S extends z.ZodType<string>>(schema: S): S;
export function text(schema: z.ZodType<string> = z.string()): z.ZodType<string> {
  return column(schema, "text");
}

/** A JSON object kept as its text, and parsed when the row is read. */
export const json = () =>
  column(
    z.string().transform((body, ctx) => {
      const value = isJsonObjectText(body);
      if (value !== undefined) return value;
      ctx.issues.push({ code: "custom", message: "must be the JSON text of an object", input: body });
      return z.NEVER;
    }),
    "json",
  );

/** JSON text as a value, or undefined when it is not JSON: a row schema then names the column that holds it. */
export function parseJsonText(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return undefined;
  }
}

/** The object a json column's text holds, or undefined when it holds anything else. */
export function isJsonObjectText(body: unknown): Record<string, unknown> | undefined {
  if (typeof body !== "string") return undefined;
  const value = parseJsonText(body);
  return isJsonObject(value) ? value : undefined;
}

/** The SQL type of a column and whether it may hold NULL, for the DDL. */
export function columnType(schema: z.ZodType): { type: SqlType; nullable: boolean } {
  const nullable = schema instanceof z.ZodNullable;
  const inner = schema instanceof z.ZodNullable ? schema.unwrap() : schema;
  const type = sqlTypes.get(inner);
  if (type === undefined) throw new Error("a table column must be built with integer(), text() or json()");
  return { type, nullable };
}

export type Columns = Record<string, z.ZodType>;

export interface IndexSpec<Column extends string> {
  name: string;
  columns: readonly Column[];
  /** A partial index over the rows where this column is set. */
  whereNotNull?: Column;
  /** Only this dialect creates the index; the other answers the same reads another way and drops it. */
  onlyIn?: DialectName;
}

export type DialectName = "sqlite" | "postgres";

export interface TableSpec<C extends Columns> {
  name: string;
  columns: C;
  primaryKey: keyof C & string;
  unique?: ReadonlyArray<keyof C & string>;
  indexes?: ReadonlyArray<IndexSpec<keyof C & string>>;
  /** Indexes earlier versions created and no query needs any more: dropped when a ledger opens. */
  droppedIndexes?: readonly string[];
  /** Rows are never updated or deleted; each dialect installs triggers that refuse it. */
  appendOnly?: boolean;
}

export interface Table<C extends Columns> extends TableSpec<C> {
  /** The schema every row a query returns is parsed with. */
  row: z.ZodObject<C>;
  /** The column names in definition order, comma-separated, for SELECT and INSERT lists. */
  list: string;
}

export type RowOf<T extends { row: z.ZodType }> = z.output<T["row"]>;

/** What the DDL needs of any table, whatever its columns. */
export type AnyTable = TableSpec<Columns>;

export function defineTable<C extends Columns>(spec: TableSpec<C>): Table<C> {
  return { ...spec, row: z.object(spec.columns), list: Object.keys(spec.columns).join(", ") };
}

/**
 * A row a query returned, checked against the schema of its table or result shape. A row that does not fit
 * was written by something other than this ledger (or the file is damaged): reading it fails loudly, naming
 * the table and column, rather than handing a wrong type to the projections.
 */
export function parseRow<S extends z.ZodType>(schema: S, value: unknown, source: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new CorruptRowError(source, issuesFromZod(result.error));
}
