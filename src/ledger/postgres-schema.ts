import type pg from "pg";
import { z } from "zod";
import { InvalidInputError, NotFoundError, sha256Hex } from "../core/index.js";
import { EVENTS, LEDGER_TABLES, ORDER_SNAPSHOTS, RUN_SNAPSHOTS } from "./ledger-tables.js";
import { addableColumns, type Dialect, indexesSql, tablesSql } from "./table-ddl.js";
import { parseRow } from "./table-schema.js";

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,47}$/;

/** Table names of one ledger, which lives in its own PostgreSQL schema (default `ledger`). */
export interface PostgresNames {
  schema: string;
  events: string;
  runs: string;
  orders: string;
  /** LISTEN/NOTIFY channel that announces new heads. */
  channel: string;
  /** Second key of the transaction-scoped advisory lock that serialises this ledger's appends. */
  lockKey: number;
}

/** First key of the advisory lock, shared by every IronClaw ledger: "LED" in ASCII. */
export const LOCK_CLASS = 0x4c4544;

export function postgresNames(schema: string): PostgresNames {
  if (!SCHEMA_NAME.test(schema))
    throw new InvalidInputError("schema", "must be a lowercase SQL name: a-z or _ first, then a-z, 0-9 or _");
  return {
    schema,
    events: `${schema}.${EVENTS.name}`,
    runs: `${schema}.${RUN_SNAPSHOTS.name}`,
    orders: `${schema}.${ORDER_SNAPSHOTS.name}`,
    channel: `${schema}_appended`,
    lockKey: hash32(schema),
  };
}

/** FNV-1a, folded into a signed 32-bit integer as pg_advisory_xact_lock(int, int) takes it. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h | 0;
}

/**
 * PostgreSQL's spelling of the ledger tables (ledger-tables.ts), in the ledger's own schema. Payloads are
 * `json`, not `jsonb`: json keeps the text as written and accepts every string JSON can carry, where jsonb
 * refuses \u0000 and would make the two stores disagree. Append-only tables refuse UPDATE, DELETE and TRUNCATE
 * through one trigger function (its name is the one the first ledgers created).
 */
export function postgresDialect(n: PostgresNames): Dialect {
  return {
    name: "postgres",
    types: { integer: "bigint", text: "text", json: "json" },
    qualify: (name) => `${n.schema}.${name}`,
    tableOptions: () => "",
    appendOnlyGuards: (table) => [
      `CREATE OR REPLACE FUNCTION ${n.schema}.refuse_event_change() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN RAISE EXCEPTION 'ledger % are immutable', TG_TABLE_NAME; END $$`,
      `CREATE OR REPLACE TRIGGER ${table.name}_no_change BEFORE UPDATE OR DELETE ON ${n.schema}.${table.name}
  FOR EACH ROW EXECUTE FUNCTION ${n.schema}.refuse_event_change()`,
      `CREATE OR REPLACE TRIGGER ${table.name}_no_truncate BEFORE TRUNCATE ON ${n.schema}.${table.name}
  FOR EACH STATEMENT EXECUTE FUNCTION ${n.schema}.refuse_event_change()`,
    ],
  };
}

/**
 * The schema, its tables, indexes and guards, and the nullable columns older ledgers lack. Positions are
 * assigned as max(position) + 1 under the advisory lock, so they are gapless and commit in order (see
 * postgres-store.ts).
 */
export function postgresSchemaSql(n: PostgresNames): string {
  const dialect = postgresDialect(n);
  const added = LEDGER_TABLES.flatMap((table) => addableColumns(table, dialect)).map(
    (c) => `ALTER TABLE ${c.table} ADD COLUMN IF NOT EXISTS ${c.name} ${c.type};\n`,
  );
  const tables = tablesSql(LEDGER_TABLES, dialect);
  return `CREATE SCHEMA IF NOT EXISTS ${n.schema};\n${tables}${added.join("")}${indexesSql(LEDGER_TABLES, dialect)}`;
}

const SCHEMA_STATE = z.object({ exists: z.boolean(), marker: z.string().nullable() });

/**
 * Creates the ledger's schema, or brings an older one up to date, unless it is already the one this code
 * defines: the DDL's hash, kept as a comment on the events table, says so. Skipping matters beyond the time
 * it saves: ALTER TABLE and CREATE OR REPLACE TRIGGER lock the events table exclusively, and an append that is
 * one statement (postgres-append.ts) holds its lock on the table while it waits for the ledger lock, which an
 * open holds while it runs the DDL. Runs in a transaction that holds the ledger lock, so concurrent opens take
 * turns.
 */
export async function ensurePostgresSchema(client: pg.PoolClient, n: PostgresNames, mustExist: boolean) {
  const { rows } = await client.query(
    "SELECT to_regclass($1) IS NOT NULL AS exists, obj_description(to_regclass($1), 'pg_class') AS marker",
    [n.events],
  );
  const state = parseRow(SCHEMA_STATE, rows[0], "pg_class");
  if (!state.exists && mustExist) throw new NotFoundError("ledger schema", n.schema);
  const ddl = postgresSchemaSql(n);
  const marker = `ironclaw ledger schema sha256:${sha256Hex(ddl)}`;
  if (state.marker === marker) return;
  await client.query(ddl);
  await client.query(`COMMENT ON TABLE ${n.events} IS '${marker}'`);
}

export const POSTGRES_SYNCHRONOUS_COMMIT = ["on", "off"] as const;
export type PostgresSynchronousCommit = (typeof POSTGRES_SYNCHRONOUS_COMMIT)[number];
