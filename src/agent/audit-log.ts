import type Database from "better-sqlite3";
import { TOOL_OUTCOMES } from "../contracts/index.js";
import { newId } from "../core/index.js";
import type { AgentDatabase } from "./agent-db.js";
import type { DayLog } from "./day-log.js";

/** How a tool call ended; the same outcomes travel to the warden in ToolResult messages. */
export const AUDIT_OUTCOMES = TOOL_OUTCOMES;
export type AuditOutcome = (typeof AUDIT_OUTCOMES)[number];

export interface AuditEntry {
  at: Date;
  sessionId: string;
  agent: string;
  tool: string;
  callId: string;
  /** The arguments as the model sent them (raw JSON text). */
  args: string;
  outcome: AuditOutcome;
  isError: boolean;
  durationMs: number;
  /** The start of the result text, enough to see what happened. */
  summary: string;
}

export interface AuditSink {
  record(entry: AuditEntry): Promise<void>;
}

const MAX_ARGS = 4096;
const MAX_SUMMARY = 500;
const MAX_LINE_ARGS = 200;

/**
 * The audit trail of seed 003 §11: one row per tool call in `audit_tool_calls` and one line in the day's log,
 * so that both a query and a human reading the markdown see every call, including the refused ones.
 */
export class BrainAuditLog implements AuditSink {
  private readonly insert: Database.Statement<
    [string, string, string, string, string, string, string, AuditOutcome, number, number, string]
  >;

  constructor(
    private readonly db: AgentDatabase,
    private readonly dayLog: DayLog,
  ) {
    this.insert = db.prepare(
      `INSERT INTO audit_tool_calls (id, ts, session_id, agent, tool, call_id, args, outcome, is_error, duration_ms, summary)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
  }

  /** Stored calls, oldest first, optionally of one session (entries are clipped as they were stored). */
  entries(sessionId?: string): AuditEntry[] {
    const rows = this.db
      .prepare<[{ session: string | null }], AuditRow>(
        `SELECT ts, session_id, agent, tool, call_id, args, outcome, is_error, duration_ms, summary
         FROM audit_tool_calls WHERE @session IS NULL OR session_id = @session ORDER BY id`,
      )
      .all({ session: sessionId ?? null });
    return rows.map((r) => ({
      at: new Date(r.ts),
      sessionId: r.session_id,
      agent: r.agent,
      tool: r.tool,
      callId: r.call_id,
      args: r.args,
      outcome: parseOutcome(r.outcome),
      isError: r.is_error !== 0,
      durationMs: r.duration_ms,
      summary: r.summary,
    }));
  }

  async record(entry: AuditEntry): Promise<void> {
    const ts = entry.at.toISOString();
    this.insert.run(
      newId(),
      ts,
      entry.sessionId,
      entry.agent,
      entry.tool,
      entry.callId,
      clip(entry.args, MAX_ARGS),
      entry.outcome,
      entry.isError ? 1 : 0,
      Math.round(entry.durationMs),
      clip(entry.summary, MAX_SUMMARY),
    );
    const args = oneLine(clip(entry.args, MAX_LINE_ARGS));
    await this.dayLog.append(
      `- ${ts.slice(11, 19)}Z tool \`${entry.tool}\` ${entry.outcome} (${Math.round(entry.durationMs)} ms, ` +
        `agent ${entry.agent}, session ${entry.sessionId}): \`${args}\``,
      entry.at,
    );
  }
}

/** Keeps entries in memory; for tests and for runs that have no brain database. */
export class MemoryAuditLog implements AuditSink {
  readonly entries: AuditEntry[] = [];
  async record(entry: AuditEntry): Promise<void> {
    this.entries.push(entry);
  }
}

interface AuditRow {
  ts: string;
  session_id: string;
  agent: string;
  tool: string;
  call_id: string;
  args: string;
  outcome: string;
  is_error: number;
  duration_ms: number;
  summary: string;
}

function parseOutcome(value: string): AuditOutcome {
  const outcome = AUDIT_OUTCOMES.find((o) => o === value);
  if (outcome === undefined)
    throw new TypeError(`audit_tool_calls.outcome ${JSON.stringify(value)} is not a tool outcome`);
  return outcome;
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").replaceAll("`", "'");
}
