import type Database from "better-sqlite3";

/** One thing the warden did or refused on someone's behalf, as the audit trail keeps it. */
export interface AuditEntry {
  userId?: string;
  actor: string;
  action: string;
  detail: Record<string, unknown>;
}

/** Rows are only ever added: the triggers turn an UPDATE or DELETE into an error, whoever issues it. */
const DDL = `
CREATE TABLE IF NOT EXISTS warden_audit (
  id INTEGER PRIMARY KEY,
  at TEXT NOT NULL,
  user_id TEXT,
  actor TEXT NOT NULL,
  action TEXT NOT NULL,
  detail TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS warden_audit_by_user ON warden_audit(user_id, id);
CREATE INDEX IF NOT EXISTS warden_audit_by_action ON warden_audit(action, id);
CREATE TRIGGER IF NOT EXISTS warden_audit_no_update BEFORE UPDATE ON warden_audit
  BEGIN SELECT RAISE(ABORT, 'warden_audit is append-only'); END;
CREATE TRIGGER IF NOT EXISTS warden_audit_no_delete BEFORE DELETE ON warden_audit
  BEGIN SELECT RAISE(ABORT, 'warden_audit is append-only'); END;
`;

export function migrateAuditTables(db: Database.Database): void {
  db.exec(DDL);
}

export interface AuditRecordInput {
  /** The user the decision concerns; absent for host-wide events. Not a foreign key: the trail outlives users. */
  userId?: string;
  /** Who decided: `cli`, `warden`, `user:<id>`, `admin:<id>`… */
  actor: string;
  /** Dotted verb such as `login.refused`, `proxy.refused`, `soul.approved`. */
  action: string;
  detail?: Record<string, unknown>;
}

export interface AuditRecord {
  id: number;
  at: string;
  userId: string | null;
  actor: string;
  action: string;
  detail: Record<string, unknown>;
}

interface AuditRow {
  id: number;
  at: string;
  user_id: string | null;
  actor: string;
  action: string;
  detail: string;
}

const MAX_LIST = 1000;

/** The warden's record of security-relevant decisions (refused proxy calls, soul approvals, logins). */
export class AuditStore {
  private readonly now: () => Date;

  constructor(
    private readonly db: Database.Database,
    options: { now?: () => Date } = {},
  ) {
    this.now = options.now ?? (() => new Date());
  }

  record(entry: AuditRecordInput): AuditRecord {
    const at = this.now().toISOString();
    const detail = JSON.stringify(entry.detail ?? {});
    const { lastInsertRowid } = this.db
      .prepare("INSERT INTO warden_audit (at, user_id, actor, action, detail) VALUES (?, ?, ?, ?, ?)")
      .run(at, entry.userId ?? null, entry.actor, entry.action, detail);
    return {
      id: Number(lastInsertRowid),
      at,
      userId: entry.userId ?? null,
      actor: entry.actor,
      action: entry.action,
      detail: JSON.parse(detail) as Record<string, unknown>,
    };
  }

  /** Newest first; at most `limit` rows (default 100, capped at 1000). */
  list(filter: { userId?: string; action?: string; limit?: number } = {}): AuditRecord[] {
    const limit = Math.min(Math.max(Math.trunc(filter.limit ?? 100), 1), MAX_LIST);
    // Only the filters given go into the WHERE, so SQLite can use the matching index.
    const params: Record<string, string | number> = { limit };
    const where: string[] = [];
    if (filter.userId !== undefined) {
      where.push("user_id = @userId");
      params.userId = filter.userId;
    }
    if (filter.action !== undefined) {
      where.push("action = @action");
      params.action = filter.action;
    }
    const rows = this.db
      .prepare(
        `SELECT id, at, user_id, actor, action, detail FROM warden_audit
         ${where.length > 0 ? `WHERE ${where.join(" AND ")}` : ""} ORDER BY id DESC LIMIT @limit`,
      )
      .all(params) as AuditRow[];
    return rows.map((r) => ({
      id: r.id,
      at: r.at,
      userId: r.user_id,
      actor: r.actor,
      action: r.action,
      detail: JSON.parse(r.detail) as Record<string, unknown>,
    }));
  }
}
