import { createHash, randomBytes } from "node:crypto";
import type Database from "better-sqlite3";
import { NotFoundError } from "../core/index.js";
import { assertTtl } from "./web-sessions.js";

const DDL = `
CREATE TABLE IF NOT EXISTS warden_login_codes (
  code_hash BLOB PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES warden_users(id) ON DELETE CASCADE,
  created_at TEXT NOT NULL,
  expires_at TEXT NOT NULL,
  epoch INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS warden_login_codes_by_expiry ON warden_login_codes(expires_at);
`;

export function migrateLoginLinkTables(db: Database.Database): void {
  db.exec(DDL);
  // Codes of a host.db from before sign-in epochs were issued under epoch 0, which every user starts at.
  const columns = db.prepare("SELECT name FROM pragma_table_info('warden_login_codes')").pluck().all();
  if (!columns.includes("epoch"))
    db.exec("ALTER TABLE warden_login_codes ADD COLUMN epoch INTEGER NOT NULL DEFAULT 0");
}

/** A redeemed code: whose it was, and the sign-in epoch the session it opens is bound to (web-sessions.ts). */
export interface RedeemedCode {
  userId: string;
  epoch: number;
}

const CODE = /^[A-Za-z0-9_-]{43}$/;

/**
 * One-time login codes, as in Jupyter's `?token=` start-up link: the warden prints a link, the browser trades
 * the code for a web session. Stored as sha256 only (the code is 256 random bits, not a password). A code
 * carries its user's sign-in epoch: rotating the token or signing out everywhere voids unused codes too.
 */
export class LoginLinks {
  private readonly now: () => number;

  constructor(
    private readonly db: Database.Database,
    options: { now?: () => number } = {},
  ) {
    this.now = options.now ?? Date.now;
  }

  issue(userId: string, ttlMs: number): string {
    assertTtl(ttlMs);
    const now = this.now();
    const code = randomBytes(32).toString("base64url");
    this.db
      .prepare(
        `DELETE FROM warden_login_codes WHERE expires_at <= ?
           OR epoch <> (SELECT sign_in_epoch FROM warden_users WHERE id = user_id)`,
      )
      .run(new Date(now).toISOString());
    const { changes } = this.db
      .prepare(
        `INSERT INTO warden_login_codes (code_hash, user_id, created_at, expires_at, epoch)
         SELECT ?, id, ?, ?, sign_in_epoch FROM warden_users WHERE id = ?`,
      )
      .run(hashCode(code), new Date(now).toISOString(), new Date(now + ttlMs).toISOString(), userId);
    if (changes === 0) throw new NotFoundError("user", userId);
    return code;
  }

  /**
   * The code's user, once. A single DELETE … RETURNING both claims and consumes the row, so of two redeems
   * racing on any connections exactly one gets it back. An expired code, or one issued before its user's
   * sign-ins were ended, is consumed too, and fails.
   */
  redeem(code: string): RedeemedCode | undefined {
    if (!CODE.test(code)) return undefined;
    const row = this.db
      .prepare(
        `DELETE FROM warden_login_codes WHERE code_hash = ? RETURNING user_id, expires_at, epoch,
           (SELECT sign_in_epoch FROM warden_users WHERE id = user_id) AS current_epoch`,
      )
      .get(hashCode(code)) as
      | { user_id: string; expires_at: string; epoch: number; current_epoch: number | null }
      | undefined;
    if (!row || Date.parse(row.expires_at) <= this.now() || row.epoch !== row.current_epoch) return undefined;
    return { userId: row.user_id, epoch: row.epoch };
  }
}

function hashCode(code: string): Buffer {
  return createHash("sha256").update(code).digest();
}
