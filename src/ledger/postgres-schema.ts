import { InvalidInputError } from "../core/index.js";

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
    events: `${schema}.events`,
    runs: `${schema}.run_snapshots`,
    orders: `${schema}.order_snapshots`,
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
 * Positions are assigned as max(position) + 1 under the advisory lock, so they are gapless and commit in
 * order (see postgres-store.ts). Payloads are `json`, not `jsonb`: json keeps the text as written and accepts
 * every string JSON can carry, where jsonb refuses \u0000 and would make the two stores disagree. `extras` keeps
 * an event's top-level keys the seed does not name (NULL when none); older ledgers get it on open.
 */
export function postgresSchemaSql(n: PostgresNames): string {
  return `
CREATE SCHEMA IF NOT EXISTS ${n.schema};
CREATE TABLE IF NOT EXISTS ${n.events} (
  position bigint PRIMARY KEY,
  event_id text NOT NULL UNIQUE,
  ts text NOT NULL,
  type text NOT NULL,
  garrison_id text NOT NULL,
  theater_id text,
  run_id text,
  order_id text,
  unit_id text,
  payload json NOT NULL,
  extras json
);
ALTER TABLE ${n.events} ADD COLUMN IF NOT EXISTS extras json;
CREATE INDEX IF NOT EXISTS events_by_run ON ${n.events} (run_id, position) WHERE run_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_by_order ON ${n.events} (order_id, position) WHERE order_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS events_by_type ON ${n.events} (type, position);
CREATE OR REPLACE FUNCTION ${n.schema}.refuse_event_change() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN RAISE EXCEPTION 'ledger events are immutable'; END $$;
CREATE OR REPLACE TRIGGER events_no_change BEFORE UPDATE OR DELETE ON ${n.events}
  FOR EACH ROW EXECUTE FUNCTION ${n.schema}.refuse_event_change();
CREATE OR REPLACE TRIGGER events_no_truncate BEFORE TRUNCATE ON ${n.events}
  FOR EACH STATEMENT EXECUTE FUNCTION ${n.schema}.refuse_event_change();
CREATE TABLE IF NOT EXISTS ${n.runs} (run_id text PRIMARY KEY, snapshot text NOT NULL);
CREATE TABLE IF NOT EXISTS ${n.orders} (order_id text PRIMARY KEY, snapshot text NOT NULL);
`;
}

export const POSTGRES_SYNCHRONOUS_COMMIT = ["on", "off"] as const;
export type PostgresSynchronousCommit = (typeof POSTGRES_SYNCHRONOUS_COMMIT)[number];
