import { createHash, randomBytes } from "node:crypto";
import type Database from "better-sqlite3";
import { InvalidInputError, NotFoundError } from "../core/index.js";

const DDL = `
CREATE TABLE IF NOT EXISTS warden_web_sessions (
  id_hash BLOB PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES warden_users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS warden_web_sessions_by_user ON warden_web_sessions(user_id);
CREATE INDEX IF NOT EXISTS warden_web_sessions_by_expiry ON warden_web_sessions(expires_at);
`;

export function migrateWebSessionTables(db: Database.Database): void {
  db.exec(DDL);
}

/** The cookie that carries a browser session id. */
export const SESSION_COOKIE = "ironclaw_session";

/** 32 random bytes in base64url; anything else is not one of ours and needs no lookup. */
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;

export interface WebSession {
  userId: string;
  admin: boolean;
  expiresAt: string;
}

/**
 * Browser sessions of the UI. Only sha256 of the cookie value is stored, so a copy of host.db does not let
 * anyone log in; sha256 suffices (no salt, no scrypt) because the value is 256 random bits, not a password.
 */
export class WebSessions {
  private readonly now: () => number;

  constructor(
    private readonly db: Database.Database,
    options: { now?: () => number } = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  create(userId: string, ttlMs: number): { id: string; expiresAt: string } {
    assertTtl(ttlMs);
    const now = this.now();
    const id = randomBytes(32).toString("base64url");
    const expiresAt = new Date(now + ttlMs).toISOString();
    // Expired rows are swept here so the table stays as small as the set of live sessions.
    this.db.prepare("DELETE FROM warden_web_sessions WHERE expires_at <= ?").run(new Date(now).toISOString());
    const { changes } = this.db
      .prepare(
        `INSERT INTO warden_web_sessions (id_hash, user_id, created_at, expires_at)
         SELECT ?, id, ?, ? FROM warden_users WHERE id = ?`,
      )
      .run(hashId(id), new Date(now).toISOString(), expiresAt, userId);
    if (changes === 0) throw new NotFoundError("user", userId);
    return { id, expiresAt };
  }

  /** The session's user, or undefined for an unknown, revoked or expired cookie (an expired one is deleted). */
  resolve(cookieValue: string): WebSession | undefined {
    if (!SESSION_ID.test(cookieValue)) return undefined;
    const hash = hashId(cookieValue);
    const row = this.db
      .prepare(
        `SELECT s.user_id, s.expires_at, u.is_admin FROM warden_web_sessions s
         JOIN warden_users u ON u.id = s.user_id WHERE s.id_hash = ?`,
      )
      .get(hash) as { user_id: string; expires_at: string; is_admin: number } | undefined;
    if (!row) return undefined;
    if (Date.parse(row.expires_at) <= this.now()) {
      this.db.prepare("DELETE FROM warden_web_sessions WHERE id_hash = ?").run(hash);
      return undefined;
    }
    return { userId: row.user_id, admin: row.is_admin === 1, expiresAt: row.expires_at };
  }

  revoke(cookieValue: string): void {
    this.db.prepare("DELETE FROM warden_web_sessions WHERE id_hash = ?").run(hashId(cookieValue));
  }

  /** Ends every browser session of the user (log out everywhere, password or role change). */
  revokeAllFor(userId: string): number {
    return this.db.prepare("DELETE FROM warden_web_sessions WHERE user_id = ?").run(userId).changes;
  }
}

function hashId(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

export function assertTtl(ttlMs: number): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
    throw new InvalidInputError("ttlMs", "must be a positive whole number of milliseconds");
}
