import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";

/**
 * The runtime's tables in the brain database (`db/ironclaw.db`), beside memory's index tables. Every name is
 * prefixed `agent_` or `audit_` so the two never collide. Besides the audit trail, sessions and cron state:
 * where each session's transcript is (`agent_transcripts`), what was forgotten or corrected, by hash only
 * (`audit_memory_changes`), which recalled passages answers used (`agent_recall_uses`) and the promotion
 * proposals made from them (`agent_promotions`).
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
CREATE TABLE IF NOT EXISTS agent_transcripts (
  session_id TEXT PRIMARY KEY,
  path TEXT NOT NULL,
  started_at TEXT NOT NULL,
  turns INTEGER NOT NULL,
  updated_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS audit_memory_changes (
  id TEXT PRIMARY KEY,
  ts TEXT NOT NULL,
  action TEXT NOT NULL,
  actor TEXT NOT NULL,
  session_id TEXT,
  path TEXT NOT NULL,
  headings TEXT NOT NULL,
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  hash TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS agent_recall_uses (
  chunk_id TEXT NOT NULL,
  session_id TEXT NOT NULL,
  day TEXT NOT NULL,
  path TEXT NOT NULL,
  headings TEXT NOT NULL,
  text TEXT NOT NULL,
  at TEXT NOT NULL,
  PRIMARY KEY (chunk_id, session_id)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS agent_recall_uses_by_at ON agent_recall_uses(at);
CREATE TABLE IF NOT EXISTS agent_promotions (
  id TEXT PRIMARY KEY,
  chunk_id TEXT NOT NULL UNIQUE,
  path TEXT NOT NULL,
  headings TEXT NOT NULL,
  text TEXT NOT NULL,
  sessions INTEGER NOT NULL,
  days INTEGER NOT NULL,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL,
  decided_at TEXT,
  result_ref TEXT
) WITHOUT ROWID;
`;

/**
 * The runtime's own connection to the brain database: the audit trail, sessions and cron state. Memory's index
 * store has its connection and its tables; this one has these, so neither reaches into the other. Both are WAL
 * connections to the one file, and a write waits for the other's lock (busy_timeout) instead of failing.
 *
 * Unlike the index, these rows are records of what happened, not derived from markdown. They are kept as the
 * index is (WAL, synchronous = NORMAL): a commit survives the process being killed; a power cut may lose the last
 * ones, as it may the day-log lines the audit mirrors. Syncing every tool call's audit row costs milliseconds a
 * call (bench/agent), on a path the model waits on.
 */
export class AgentDatabase {
  private constructor(
    private readonly db: Database.Database,
    readonly file: string,
  ) {}

  static open(file: string): AgentDatabase {
    mkdirSync(dirname(file), { recursive: true });
    const db = new Database(file);
    try {
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      db.pragma("busy_timeout = 10000");
      db.exec(DDL);
    } catch (error) {
      db.close();
      throw error;
    }
    return new AgentDatabase(db, file);
  }

  /**
   * A statement on the runtime's tables, typed by its parameters (a tuple, `[{ … }]` for named ones) and row.
   * The types are the caller's word for what the SQL binds and returns, stated once beside the SQL.
   */
  prepare<Params extends unknown[] = unknown[], Row = never>(sql: string): Database.Statement<Params, Row> {
    return this.db.prepare(sql) as Database.Statement<Params, Row>;
  }

  /** Runs `work` in one write transaction, taking the write lock at the start. */
  transaction<T>(work: () => T): T {
    return this.db.transaction(work).immediate();
  }

  close(): void {
    this.db.close();
  }
}

/** Opens (creating when missing) the runtime's tables of a brain database. */
export function openAgentDatabase(file: string): AgentDatabase {
  return AgentDatabase.open(file);
}
