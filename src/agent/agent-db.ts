import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";

/**
 * The runtime's tables in the brain database (`db/ironclaw.db`), beside memory's index tables. Every name is
 * prefixed `agent_` or `audit_` so the two never collide. Unlike the index, these rows are not derived from
 * markdown: the audit trail and job state are records of what happened.
 */
const DDL = `
CREATE TABLE IF NOT EXISTS audit_tool_calls (
  id TEXT PRIMARY KEY,
  ts TEXT NOT NULL,
  session_id TEXT NOT NULL,
  agent TEXT NOT NULL,
  tool TEXT NOT NULL,
  call_id TEXT NOT NULL,
  args TEXT NOT NULL,
  outcome TEXT NOT NULL,
  is_error INTEGER NOT NULL,
  duration_ms INTEGER NOT NULL,
  summary TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS audit_tool_calls_by_ts ON audit_tool_calls(ts);
CREATE INDEX IF NOT EXISTS audit_tool_calls_by_session ON audit_tool_calls(session_id, ts);
CREATE TABLE IF NOT EXISTS agent_sessions (
  session_id TEXT PRIMARY KEY,
  agent TEXT NOT NULL,
  messages TEXT NOT NULL,
  turns INTEGER NOT NULL,
  updated_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS agent_cron_jobs (
  job_id TEXT PRIMARY KEY,
  schedule TEXT NOT NULL,
  timezone TEXT NOT NULL,
  agent TEXT,
  enabled INTEGER NOT NULL,
  next_run TEXT,
  last_run TEXT,
  status TEXT NOT NULL,
  last_result_ref TEXT,
  last_error TEXT,
  updated_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS agent_cron_runs (
  run_id TEXT PRIMARY KEY,
  job_id TEXT NOT NULL,
  reason TEXT NOT NULL,
  scheduled_for TEXT,
  started_at TEXT NOT NULL,
  finished_at TEXT,
  status TEXT NOT NULL,
  session_id TEXT NOT NULL,
  result_ref TEXT,
  error TEXT
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS agent_cron_runs_by_job ON agent_cron_runs(job_id, started_at);
`;

/** Creates the runtime's tables when missing, on a connection someone else may own (memory's index store). */
export function migrateAgentTables(db: Database.Database): void {
  db.exec(DDL);
}

/** Opens the brain database for the runtime's own tables, in WAL mode so memory's connection can share it. */
export function openAgentDatabase(file: string): Database.Database {
  mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("busy_timeout = 10000");
    migrateAgentTables(db);
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}
