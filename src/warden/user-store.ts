import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import type Database from "better-sqlite3";
import { Emitter, IronclawError, NotFoundError } from "../core/index.js";

const DDL = `
CREATE TABLE IF NOT EXISTS warden_users (
  id TEXT PRIMARY KEY,
  is_admin INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  cell_uid INTEGER NOT NULL UNIQUE,
  sign_in_epoch INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS warden_tokens (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES warden_users(id) ON DELETE CASCADE,
  salt BLOB NOT NULL,
  hash BLOB NOT NULL,
  created_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS warden_tokens_by_user ON warden_tokens(user_id);
`;

export function migrateUserTables(db: Database.Database): void {
  db.exec(DDL);
  // A host.db from before sign-in epochs: every user starts at 0, so their open sessions (also 0) stay valid.
  const columns = db.prepare("SELECT name FROM pragma_table_info('warden_users')").pluck().all();
  if (!columns.includes("sign_in_epoch"))
    db.exec("ALTER TABLE warden_users ADD COLUMN sign_in_epoch INTEGER NOT NULL DEFAULT 0");
}

/** User names become directory and socket names, hence the same rule as cells' assertUserId. */
const USER_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;
const USER_NAME_RULE = "must be 1-64 letters, digits, - or _, starting with a letter or digit";

/** The first uid given to a cell; well above the uids distributions hand to people and system services. */
export const FIRST_CELL_UID = 200_000;

// tokenId is hex so the `_` separators stay unambiguous; the secret is 32 bytes of base64url (43 chars).
const TOKEN = /^ick_([0-9a-f]{16})_([A-Za-z0-9_-]{43})$/;
const SCRYPT = { N: 16384, r: 8, p: 1 } as const;
const KEY_BYTES = 32;
const CACHE_LIMIT = 10_000;

export class InvalidUserNameError extends IronclawError {
  override readonly name = "InvalidUserNameError";
  readonly path = "name";
  readonly rule = USER_NAME_RULE;
  constructor(value: string) {
    super("invalid_user_name", `name: ${JSON.stringify(value)} ${USER_NAME_RULE}`);
  }
}

export class UserExistsError extends IronclawError {
  override readonly name = "UserExistsError";
  readonly path = "name";
  constructor(value: string, rule = "is already taken") {
    super("user_exists", `name: user ${JSON.stringify(value)} ${rule}`);
  }
}

export interface User {
  id: string;
  admin: boolean;
  createdAt: string;
  /** The host uid the user's cell runs as; unique among existing users. */
  cellUid: number;
}

export interface Authenticated {
  userId: string;
  admin: boolean;
  /**
   * The user's sign-in epoch when the token was checked. A browser session opened with this token is bound to
   * it, so a rotation that lands between the check and the session's creation still ends that session.
   */
  epoch: number;
}

/** Why every sign-in of a user ended: their token was rotated, they were removed, or they signed out everywhere. */
export type SignInsEndedListener = (userId: string) => void;

interface UserRow {
  id: string;
  is_admin: number;
  created_at: string;
  cell_uid: number;
}

export function assertUserName(name: string): void {
  if (!USER_NAME.test(name)) throw new InvalidUserNameError(name);
}

/** Users and their API tokens in host.db. Only scrypt hashes of token secrets are stored. */
export class UserStore {
  /** sha256(token) → the row it verified against, so a repeat request costs one indexed SELECT, not scrypt. */
  private readonly verified = new Map<string, { userId: string; hash: Buffer }>();
  private readonly now: () => Date;
  /** Prepared once: it runs on every authenticated request. */
  private readonly selectToken: Database.Statement;
  /** A listener's failure must not undo or hide the change that was made; it is the listener's to log. */
  private readonly signInsEnded = new Emitter<[userId: string]>(() => {});

  constructor(
    private readonly db: Database.Database,
    options: { now?: () => Date } = {},
  ) {
    this.now = options.now ?? (() => new Date());
    // remove() relies on ON DELETE CASCADE to end the user's sessions; without it they would outlive the user.
    if (db.pragma("foreign_keys", { simple: true }) !== 1)
      throw new IronclawError(
        "foreign_keys_off",
        "UserStore needs a connection with foreign_keys on (openHostDb)",
      );
    this.selectToken = db.prepare(
      `SELECT t.user_id, t.salt, t.hash, u.is_admin, u.sign_in_epoch FROM warden_tokens t
       JOIN warden_users u ON u.id = t.user_id WHERE t.id = ?`,
    );
  }

  /** Creates a user with one API token; the token is returned only here, so the caller shows it once. */
  async add(name: string, options: { admin?: boolean } = {}): Promise<{ user: User; token: string }> {
    assertUserName(name);
    this.assertFree(name);
    const { token, row } = await newToken();
    const user = this.db
      .transaction(() => {
        this.assertFree(name);
        const created = this.insertUser(name, options.admin === true);
        this.insertToken(name, row);
        return created;
      })
      .immediate();
    return { user, token };
  }

  list(): User[] {
    const rows = this.db.prepare("SELECT * FROM warden_users ORDER BY created_at, id").all() as UserRow[];
    return rows.map(toUser);
  }

  get(name: string): User | undefined {
    const row = this.db.prepare("SELECT * FROM warden_users WHERE id = ?").get(name) as UserRow | undefined;
    return row && toUser(row);
  }

  /**
   * Deletes the user; their tokens, web sessions and login codes go with them (ON DELETE CASCADE). Files on
   * disk (the brain) are left alone on purpose: whether to archive or delete them is the caller's decision.
   */
  remove(name: string): void {
    const { changes } = this.db.prepare("DELETE FROM warden_users WHERE id = ?").run(name);
    if (changes === 0) throw new NotFoundError("user", name);
    this.forget(name);
    this.announceEnded(name);
  }

  /**
   * Replaces every token of the user with a new one; the old ones fail from the next request on, and every
   * browser session and unused login link of the user ends with them (the sign-in epoch moves on): a rotation
   * answers a leaked token, and a session opened with that token is as good as the token.
   */
  async rotateToken(name: string): Promise<string> {
    if (!this.get(name)) throw new NotFoundError("user", name);
    const { token, row } = await newToken();
    this.db
      .transaction(() => {
        if (!this.get(name)) throw new NotFoundError("user", name);
        this.db.prepare("DELETE FROM warden_tokens WHERE user_id = ?").run(name);
        this.insertToken(name, row);
        this.bumpEpoch(name);
      })
      .immediate();
    this.forget(name);
    this.announceEnded(name);
    return token;
  }

  /**
   * Signs the user out everywhere: every browser session and unused login link ends (sign-in epoch + 1);
   * API tokens keep working (rotateToken ends those).
   */
  endSignIns(name: string): void {
    this.bumpEpoch(name);
    this.announceEnded(name);
  }

  /** The user's current sign-in epoch; sessions and login links made under an older one are void. */
  signInEpoch(name: string): number | undefined {
    const epoch = this.db.prepare("SELECT sign_in_epoch FROM warden_users WHERE id = ?").pluck().get(name);
    return typeof epoch === "number" ? epoch : undefined;
  }

  /**
   * Told after this process ended a user's sign-ins (rotation, removal, sign out everywhere), so open
   * connections can be closed at once. Other processes' changes (the CLI) are not announced here.
   */
  onSignInsEnded(listener: SignInsEndedListener): () => void {
    return this.signInsEnded.on(listener);
  }

  /**
   * Whether `token` is shaped like one of ours and names a token that exists; its secret is not checked.
   * The login lockout counts wrong secrets per existing token (login-lockout.ts).
   */
  tokenIdIfKnown(token: string): string | undefined {
    const tokenId = TOKEN.exec(token)?.[1];
    return tokenId !== undefined && this.tokenRow(tokenId) ? tokenId : undefined;
  }

  /**
   * The first admin, creating `admin` when there is none. It gets no API token (nobody would see it): the
   * warden hands out a login link, and `ironclaw user token rotate admin` makes a token.
   */
  ensureAdmin(): User {
    return this.db
      .transaction(() => {
        const row = this.db
          .prepare("SELECT * FROM warden_users WHERE is_admin = 1 ORDER BY created_at, id LIMIT 1")
          .get() as UserRow | undefined;
        if (row) return toUser(row);
        // Promoting an existing non-admin `admin` would hand the host to whoever picked that name.
        if (this.get("admin"))
          throw new UserExistsError("admin", "exists but is not an admin, and no admin does");
        return this.insertUser("admin", true);
      })
      .immediate();
  }

  /** The token's user, or undefined for a malformed, unknown, revoked or wrong token. */
  async authenticate(token: string): Promise<Authenticated | undefined> {
    const parts = TOKEN.exec(token);
    if (!parts) return undefined;
    const [, tokenId = "", secret = ""] = parts;
    const key = createHash("sha256").update(token).digest("hex");
    const cached = this.verified.get(key);
    // Always read the row, even on a cache hit: another process may have removed the user or rotated the token.
    const row = this.tokenRow(tokenId);
    if (cached) {
      if (row && row.user_id === cached.userId && row.hash.equals(cached.hash))
        return { userId: row.user_id, admin: row.is_admin === 1, epoch: row.sign_in_epoch };
      this.verified.delete(key);
      return undefined;
    }
    if (!row) return undefined;
    const hash = await deriveKey(secret, row.salt);
    if (!timingSafeEqual(hash, row.hash)) return undefined;
    if (this.verified.size >= CACHE_LIMIT) {
      const oldest = this.verified.keys().next().value;
      if (oldest !== undefined) this.verified.delete(oldest);
    }
    this.verified.set(key, { userId: row.user_id, hash: row.hash });
    return { userId: row.user_id, admin: row.is_admin === 1, epoch: row.sign_in_epoch };
  }

  private tokenRow(tokenId: string) {
    return this.selectToken.get(tokenId) as
      | { user_id: string; salt: Buffer; hash: Buffer; is_admin: number; sign_in_epoch: number }
      | undefined;
  }

  private bumpEpoch(name: string): void {
    const { changes } = this.db
      .prepare("UPDATE warden_users SET sign_in_epoch = sign_in_epoch + 1 WHERE id = ?")
      .run(name);
    if (changes === 0) throw new NotFoundError("user", name);
  }

  private announceEnded(userId: string): void {
    this.signInsEnded.emit(userId);
  }

  /** Names that differ only in case are refused too: they would share a brain directory on macOS. */
  private assertFree(name: string): void {
    const taken = this.db
      .prepare("SELECT id FROM warden_users WHERE id = ? COLLATE NOCASE")
      .pluck()
      .get(name);
    if (typeof taken !== "string") return;
    throw new UserExistsError(
      name,
      taken === name ? "is already taken" : `differs from user "${taken}" only in case`,
    );
  }

  private forget(userId: string): void {
    for (const [key, entry] of this.verified) if (entry.userId === userId) this.verified.delete(key);
  }

  /** Call inside a write transaction: the uid is the lowest free one, which another writer could take. */
  private insertUser(name: string, admin: boolean): User {
    const { uid } = this.db
      .prepare(
        `SELECT CASE WHEN NOT EXISTS (SELECT 1 FROM warden_users WHERE cell_uid = @base) THEN @base
           ELSE (SELECT MIN(cell_uid) + 1 FROM warden_users u WHERE cell_uid >= @base
                 AND NOT EXISTS (SELECT 1 FROM warden_users v WHERE v.cell_uid = u.cell_uid + 1)) END AS uid`,
      )
      .get({ base: FIRST_CELL_UID }) as { uid: number };
    const row: UserRow = {
      id: name,
      is_admin: admin ? 1 : 0,
      created_at: this.now().toISOString(),
      cell_uid: uid,
    };
    this.db
      .prepare(
        "INSERT INTO warden_users (id, is_admin, created_at, cell_uid) VALUES (@id, @is_admin, @created_at, @cell_uid)",
      )
      .run(row);
    return toUser(row);
  }

  private insertToken(userId: string, row: { id: string; salt: Buffer; hash: Buffer }): void {
    this.db
      .prepare("INSERT INTO warden_tokens (id, user_id, salt, hash, created_at) VALUES (?, ?, ?, ?, ?)")
      .run(row.id, userId, row.salt, row.hash, this.now().toISOString());
  }
}

async function newToken(): Promise<{ token: string; row: { id: string; salt: Buffer; hash: Buffer } }> {
  const id = randomBytes(8).toString("hex");
  const secret = randomBytes(32).toString("base64url");
  const salt = randomBytes(16);
  return { token: `ick_${id}_${secret}`, row: { id, salt, hash: await deriveKey(secret, salt) } };
}

/** Async scrypt runs on libuv's pool, so a burst of logins does not stall the warden's event loop. */
function deriveKey(secret: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(secret, salt, KEY_BYTES, SCRYPT, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

function toUser(row: UserRow): User {
  return { id: row.id, admin: row.is_admin === 1, createdAt: row.created_at, cellUid: row.cell_uid };
}
