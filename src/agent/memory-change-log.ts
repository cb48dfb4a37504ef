import { newId } from "../core/index.js";
import type { ForgetMatcher } from "../memory/index.js";
import type { AgentDatabase } from "./agent-db.js";
import type { DayLog } from "./day-log.js";
import { FORGOTTEN } from "./forget-scrub.js";

export const MEMORY_CHANGE_ACTIONS = ["forget", "correct", "promote"] as const;
export type MemoryChangeAction = (typeof MEMORY_CHANGE_ACTIONS)[number];

/** One place of the brain that a forget, a correction or an approved promotion changed. */
export interface MemoryChange {
  path: string;
  headings: string[];
  startLine: number;
  endLine: number;
  /** sha256 of the text removed or replaced (never the text itself). */
  hash: string;
}

export interface MemoryChangeRecord extends MemoryChange {
  at: string;
  action: MemoryChangeAction;
  /** Who asked: `agent` (the memory tool), `user` (the UI or API), `cli`. */
  actor: string;
  sessionId: string | null;
}

/**
 * The brain's history of deliberate memory changes (seed 003 §11: audit memory writes): one row per changed
 * place in `audit_memory_changes` and one line in the day's log, with path, headings and a hash so a person can
 * see that and where something was forgotten — not what it was. A heading that itself held the forgotten words
 * is recorded as `[forgotten]`.
 */
export class MemoryChangeLog {
  constructor(
    private readonly db: AgentDatabase,
    private readonly dayLog: DayLog,
  ) {}

  async record(
    action: MemoryChangeAction,
    changes: readonly MemoryChange[],
    scope: { actor: string; sessionId?: string; at: Date; redact?: ForgetMatcher },
  ): Promise<void> {
    if (changes.length === 0) return;
    const ts = scope.at.toISOString();
    const safe = changes.map((c) => ({
      ...c,
      headings: c.headings.map((h) => (scope.redact?.(h) ? FORGOTTEN : h)),
    }));
    const insert = this.db.prepare<
      [string, string, string, string, string | null, string, string, number, number, string]
    >(
      `INSERT INTO audit_memory_changes (id, ts, action, actor, session_id, path, headings, start_line, end_line, hash)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    );
    this.db.transaction(() => {
      for (const c of safe)
        insert.run(
          newId(),
          ts,
          action,
          scope.actor,
          scope.sessionId ?? null,
          c.path,
          JSON.stringify(c.headings),
          c.startLine,
          c.endLine,
          c.hash,
        );
    });
    const places = safe
      .map(
        (c) =>
          `${[c.path, ...c.headings].join(" › ")} (lines ${c.startLine}-${c.endLine}, ${c.hash.slice(0, 19)}…)`,
      )
      .join("; ");
    const by = scope.sessionId ? `${scope.actor}, session ${scope.sessionId}` : scope.actor;
    await this.dayLog.append(
      `- ${ts.slice(11, 19)}Z memory ${action} (${by}): ${places.replaceAll("`", "'")}`,
      scope.at,
    );
  }

  /** Recorded changes, newest first. */
  list(limit = 100): MemoryChangeRecord[] {
    return this.db
      .prepare<[number], ChangeRow>(
        `SELECT ts, action, actor, session_id, path, headings, start_line, end_line, hash
         FROM audit_memory_changes ORDER BY ts DESC, id DESC LIMIT ?`,
      )
      .all(limit)
      .map((r) => ({
        at: r.ts,
        action: MEMORY_CHANGE_ACTIONS.find((a) => a === r.action) ?? "forget",
        actor: r.actor,
        sessionId: r.session_id,
        path: r.path,
        headings: JSON.parse(r.headings) as string[],
        startLine: r.start_line,
        endLine: r.end_line,
        hash: r.hash,
      }));
  }
}

interface ChangeRow {
  ts: string;
  action: string;
  actor: string;
  session_id: string | null;
  path: string;
  headings: string;
  start_line: number;
  end_line: number;
  hash: string;
}
