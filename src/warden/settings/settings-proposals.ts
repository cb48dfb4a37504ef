import type Database from "better-sqlite3";
import type { SettingChange, SettingsProposalStatus } from "../../contracts/index.js";

// Proposals live in host.db beside the users they belong to. Each keeps its target's text as it was when proposed
// (the base its confirmation is checked against, and what a revert restores) and the text as the change makes it.
const DDL = `
CREATE TABLE IF NOT EXISTS warden_settings_proposals (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES warden_users(id) ON DELETE CASCADE,
  summary TEXT NOT NULL,
  changes TEXT NOT NULL,
  base_text TEXT NOT NULL,
  new_text TEXT NOT NULL,
  diff TEXT NOT NULL,
  secrets TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  decided_by TEXT,
  decided_at TEXT,
  reverted_by TEXT,
  reverted_at TEXT,
  target TEXT NOT NULL DEFAULT 'ironclawd.toml'
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS warden_settings_proposals_by_time ON warden_settings_proposals (created_at);
`;

export function migrateSettingsTables(db: Database.Database): void {
  db.exec(DDL);
}

export interface SettingsProposal {
  id: string;
  userId: string;
  /** `ironclawd.toml`, `profile:<user>/<agent>` or `budget:<user>[/<agent>]`. */
  target: string;
  summary: string;
  changes: SettingChange[];
  /** The target's text when the change was proposed: its confirmation needs the file still so, its revert restores it. */
  baseText: string;
  newText: string;
  diff: string;
  secrets: string[];
  status: SettingsProposalStatus;
  createdAt: string;
  expiresAt: string;
  decidedBy?: string;
  decidedAt?: string;
  revertedBy?: string;
  revertedAt?: string;
}

interface Row {
  id: string;
  user_id: string;
  target: string;
  summary: string;
  changes: string;
  base_text: string;
  new_text: string;
  diff: string;
  secrets: string;
  status: SettingsProposalStatus;
  created_at: string;
  expires_at: string;
  decided_by: string | null;
  decided_at: string | null;
  reverted_by: string | null;
  reverted_at: string | null;
}

/** The rows of proposals; the rules of who may do what, and the file itself, are the desk's (settings-desk.ts). */
export class SettingsProposals {
  constructor(private readonly db: Database.Database) {}

  add(p: Omit<SettingsProposal, "status">): SettingsProposal {
    this.db
      .prepare(
        `INSERT INTO warden_settings_proposals
           (id, user_id, target, summary, changes, base_text, new_text, diff, secrets, status, created_at,
            expires_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending', ?, ?)`,
      )
      .run(
        p.id,
        p.userId,
        p.target,
        p.summary,
        JSON.stringify(p.changes),
        p.baseText,
        p.newText,
        p.diff,
        JSON.stringify(p.secrets),
        p.createdAt,
        p.expiresAt,
      );
    return { ...p, status: "pending" };
  }

  get(id: string): SettingsProposal | undefined {
    const row = this.db.prepare("SELECT * FROM warden_settings_proposals WHERE id = ?").get(id) as
      | Row
      | undefined;
    return row && fromRow(row);
  }

  /** Newest first. */
  list(limit = 100): SettingsProposal[] {
    const rows = this.db
      .prepare("SELECT * FROM warden_settings_proposals ORDER BY created_at DESC, id DESC LIMIT ?")
      .all(limit) as Row[];
    return rows.map(fromRow);
  }

  /** Pending proposals past their time become expired; returns how many did. */
  expire(nowIso: string): number {
    return this.db
      .prepare(
        "UPDATE warden_settings_proposals SET status = 'expired' WHERE status = 'pending' AND expires_at <= ?",
      )
      .run(nowIso).changes;
  }

  /** Moves a proposal from one status to the next; false when it was no longer in `from` (someone was first). */
  decide(
    id: string,
    from: SettingsProposalStatus,
    to: SettingsProposalStatus,
    by: string,
    at: string,
  ): boolean {
    const reverting = to === "reverted";
    const sql = reverting
      ? "UPDATE warden_settings_proposals SET status = ?, reverted_by = ?, reverted_at = ? WHERE id = ? AND status = ?"
      : "UPDATE warden_settings_proposals SET status = ?, decided_by = ?, decided_at = ? WHERE id = ? AND status = ?";
    return this.db.prepare(sql).run(to, by, at, id, from).changes === 1;
  }
}

function fromRow(row: Row): SettingsProposal {
  return {
    id: row.id,
    userId: row.user_id,
    target: row.target,
    summary: row.summary,
    changes: JSON.parse(row.changes) as SettingChange[],
    baseText: row.base_text,
    newText: row.new_text,
    diff: row.diff,
    secrets: JSON.parse(row.secrets) as string[],
    status: row.status,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    ...(row.decided_by === null ? {} : { decidedBy: row.decided_by }),
    ...(row.decided_at === null ? {} : { decidedAt: row.decided_at }),
    ...(row.reverted_by === null ? {} : { revertedBy: row.reverted_by }),
    ...(row.reverted_at === null ? {} : { revertedAt: row.reverted_at }),
  };
}
