import { createHash, randomBytes } from "node:crypto";
import type Database from "better-sqlite3";
import { InvalidInputError, NotFoundError } from "../core/index.js";
import type { UserStore } from "./user-store.js";

const DDL = `
CREATE TABLE IF NOT EXISTS warden_web_sessions (
  id_hash BLOB PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES warden_users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  epoch INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS warden_web_sessions_by_user ON warden_web_sessions(user_id);
CREATE INDEX IF NOT EXISTS warden_web_sessions_by_expiry ON warden_web_sessions(expires_at);
`;

export function migrateWebSessionTables(db: Database.Database): void {
  db.exec(DDL);
  // Sessions of a host.db from before sign-in epochs were opened under epoch 0, which every user starts at.
  const columns = db.prepare("SELECT name FROM pragma_table_info('warden_web_sessions')").pluck().all();
  if (!columns.includes("epoch"))
    db.exec("ALTER TABLE warden_web_sessions ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0");
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
 * A session is bound to its user's sign-in epoch (warden_users.sign_in_epoch) as it was when the token or the
 * login link it was opened with was checked: rotating the token, signing out everywhere or removing the user
 * moves the epoch on (or deletes the user), and every session of the old epoch stops resolving at once, in
 * this process and any other that shares host.db.
 */
export class WebSessions {
  private readonly now: () => number;

  constructor(
    private readonly db: Database.Database,
    options: { now?: () => number } = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  /**
   * A new session for the user, bound to `epoch`: the sign-in epoch read when the credential was checked
   * (UserStore.authenticate, LoginLinks.redeem). Undefined when the epoch has moved on since (the token was
   * rotated or the user signed out everywhere in between); NotFoundError when the user does not exist.
   */
  create(userId: string, ttlMs: number, epoch: number): { id: string; expiresAt: string } | undefined {
    assertTtl(ttlMs);
    const now = this.now();
    const id = randomBytes(32).toString("base64url");
    const expiresAt = new Date(now + ttlMs).toISOString();
    // Expired and ended rows are swept here so the table stays as small as the set of live sessions.
    this.db
      .prepare(
        `DELETE FROM warden_web_sessions WHERE expires_at <= ?
           OR epoch <> (SELECT sign_in_epoch FROM warden_users WHERE id = user_id)`,
      )
      .run(new Date(now).toISOString());
    // One statement checks the epoch and inserts, so a rotation committed by any process is never missed.
    const { changes } = this.db
      .prepare(
        `INSERT INTO warden_web_sessions (id_hash, user_id, created_at, expires_at, epoch)
         SELECT ?, id, ?, ?, sign_in_epoch FROM warden_users WHERE id = ? AND sign_in_epoch = ?`,
      )
      .run(hashId(id), new Date(now).toISOString(), expiresAt, userId, epoch);
    if (changes > 0) return { id, expiresAt };
    if (this.db.prepare("SELECT 1 FROM warden_users WHERE id = ?").get(userId) === undefined)
      throw new NotFoundError("user", userId);
    return undefined;
  }

  /**
   * The session's user, or undefined for an unknown, revoked, ended or expired cookie (an expired or ended one
   * is deleted).
   */
  resolve(cookieValue: string): WebSession | undefined {
    if (!SESSION_ID.test(cookieValue)) return undefined;
    const hash = hashId(cookieValue);
    const row = this.db
      .prepare(
        `SELECT s.user_id, s.expires_at, s.epoch, u.is_admin, u.sign_in_epoch FROM warden_web_sessions s
         JOIN warden_users u ON u.id = s.user_id WHERE s.id_hash = ?`,
      )
      .get(hash) as
      | { user_id: string; expires_at: string; epoch: number; is_admin: number; sign_in_epoch: number }
      | undefined;
    if (!row) return undefined;
    if (Date.parse(row.expires_at) <= this.now() || row.epoch !== row.sign_in_epoch) {
      this.db.prepare("DELETE FROM warden_web_sessions WHERE id_hash = ?").run(hash);
      return undefined;
    }
    return { userId: row.user_id, admin: row.is_admin === 1, expiresAt: row.expires_at };
  }

  revoke(cookieValue: string): void {
    this.db.prepare("DELETE FROM warden_web_sessions WHERE id_hash = ?").run(hashId(cookieValue));
  }

  /**
   * Deletes every browser session of the user and says how many were live. Call it before UserStore.endSignIns:
   * the epoch is what ends them for good (a login racing this delete would otherwise keep a new one).
   */
  revokeAllFor(userId: string): number {
    return this.db.transaction(() => {
      const live = this.db
        .prepare(
          `SELECT count(*) FROM warden_web_sessions s JOIN warden_users u ON u.id = s.user_id
           WHERE s.user_id = ? AND s.expires_at > ? AND s.epoch = u.sign_in_epoch`,
        )
        .pluck()
        .get(userId, new Date(this.now()).toISOString()) as number;
      this.db.prepare("DELETE FROM warden_web_sessions WHERE user_id = ?").run(userId);
      return live;
    })();
  }
}

function hashId(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

export function assertTtl(ttlMs: number): void {
  if (!Number.isSafeInteger(ttlMs) || ttlMs <= 0)
    throw new InvalidInputError("ttlMs", "must be a positive whole number of milliseconds");
}

/**
 * Signs a user out everywhere (the UI's button, POST /api/auth/logout-all, `ironclaw user logout`): every browser
 * session and unused login link ends; API tokens keep working. Returns how many sessions were live.
 */
export function signOutEverywhere(
  stores: { users: UserStore; webSessions: WebSessions },
  userId: string,
): number {
  const ended = stores.webSessions.revokeAllFor(userId);
  stores.users.endSignIns(userId);
  return ended;
}
