import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type Database from "better-sqlite3";
import type { z } from "zod";
import { secretNameSchema, secretValueSchema } from "../../contracts/index.js";
import { InvalidInputError, IronclawError, NotFoundError } from "../../core/index.js";
import type { AuditRecordInput } from "../audit-store.js";
import type { SecretKeyring } from "./secret-key.js";

const DDL = `
CREATE TABLE IF NOT EXISTS warden_secrets (
  user_id TEXT NOT NULL REFERENCES warden_users(id) ON DELETE CASCADE,
  name TEXT NOT NULL,
  nonce BLOB NOT NULL,
  ciphertext BLOB NOT NULL,
  tag BLOB NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  PRIMARY KEY (user_id, name)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS warden_secret_bindings (
  user_id TEXT NOT NULL REFERENCES warden_users(id) ON DELETE CASCADE,
  secret_name TEXT NOT NULL,
  host TEXT NOT NULL,
  header TEXT NOT NULL,
  format TEXT NOT NULL,
  methods TEXT,
  paths TEXT,
  created_at TEXT NOT NULL,
  PRIMARY KEY (user_id, secret_name, host)
) WITHOUT ROWID;
`;

/** Secrets and their bindings; a binding may name a secret not set yet, so it has no foreign key to it. */
export function migrateSecretTables(db: Database.Database): void {
  db.exec(DDL);
}

export type AuditSink = (entry: AuditRecordInput) => void;

/** A stored secret as anyone may see it. */
export interface SecretInfo {
  name: string;
  createdAt: string;
  updatedAt: string;
}

export class SecretUnreadableError extends IronclawError {
  override readonly name = "SecretUnreadableError";
  constructor(userId: string, name: string, cause: unknown) {
    super(
      "secret_unreadable",
      `secret ${name} of user ${userId} cannot be decrypted: its row or secrets.key was changed or moved`,
      { cause },
    );
  }
}

/** `field: rule` for a value the schema refuses; never quotes the value, which may be a secret. */
export function checkField<S extends z.ZodType>(schema: S, value: unknown, field: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  throw new InvalidInputError(field, result.error.issues[0]?.message ?? "is invalid");
}

interface SecretRow {
  nonce: Buffer;
  ciphertext: Buffer;
  tag: Buffer;
}

/**
 * Users' secrets in host.db, each value sealed with AES-256-GCM under a fresh nonce. The user and the name are the
 * associated data, so a row copied to another user or renamed fails to open instead of handing over its value.
 */
export class SecretStore {
  private readonly now: () => Date;
  private readonly audit: AuditSink;

  constructor(
    private readonly db: Database.Database,
    private readonly keyring: SecretKeyring,
    options: { audit?: AuditSink; now?: () => Date } = {},
  ) {
    this.now = options.now ?? (() => new Date());
    this.audit = options.audit ?? (() => {});
  }

  /** Stores (or replaces) a value; `by` is who did it, for the audit trail, which never holds the value. */
  set(userId: string, name: string, value: string, by: string): SecretInfo {
    checkField(secretNameSchema, name, "name");
    checkField(secretValueSchema, value, "value");
    this.assertUser(userId);
    const nonce = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.keyring.valueKey(), nonce);
    cipher.setAAD(associatedData(userId, name));
    const ciphertext = Buffer.concat([cipher.update(value, "utf8"), cipher.final()]);
    const at = this.now().toISOString();
    this.db
      .prepare(
        `INSERT INTO warden_secrets (user_id, name, nonce, ciphertext, tag, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)
         ON CONFLICT (user_id, name) DO UPDATE SET nonce = excluded.nonce, ciphertext = excluded.ciphertext,
           tag = excluded.tag, updated_at = excluded.updated_at`,
      )
      .run(userId, name, nonce, ciphertext, cipher.getAuthTag(), at, at);
    this.audit({ userId, actor: by, action: "secret.set", detail: { name } });
    const info = this.info(userId, name);
    if (!info) throw new NotFoundError("secret", name);
    return info;
  }

  /** The value, or undefined when not set. A row that fails authentication throws SecretUnreadableError. */
  get(userId: string, name: string): string | undefined {
    const row = this.db
      .prepare("SELECT nonce, ciphertext, tag FROM warden_secrets WHERE user_id = ? AND name = ?")
      .get(userId, name) as SecretRow | undefined;
    if (!row) return undefined;
    // Outside the try: a refused key file is its own error, not a damaged row.
    const key = this.keyring.valueKey();
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, row.nonce);
      decipher.setAAD(associatedData(userId, name));
      decipher.setAuthTag(row.tag);
      return Buffer.concat([decipher.update(row.ciphertext), decipher.final()]).toString("utf8");
    } catch (error) {
      throw new SecretUnreadableError(userId, name, error);
    }
  }

  /** Names and times, by name; never values. */
  list(userId: string): SecretInfo[] {
    const rows = this.db
      .prepare("SELECT name, created_at, updated_at FROM warden_secrets WHERE user_id = ? ORDER BY name")
      .all(userId) as Array<{ name: string; created_at: string; updated_at: string }>;
    return rows.map((r) => ({ name: r.name, createdAt: r.created_at, updatedAt: r.updated_at }));
  }

  has(userId: string, name: string): boolean {
    return this.info(userId, name) !== undefined;
  }

  /** Deletes the value (host.db zeroes deleted rows: secure_delete); false when there was none. */
  remove(userId: string, name: string, by: string): boolean {
    checkField(secretNameSchema, name, "name");
    const { changes } = this.db
      .prepare("DELETE FROM warden_secrets WHERE user_id = ? AND name = ?")
      .run(userId, name);
    if (changes > 0) this.audit({ userId, actor: by, action: "secret.removed", detail: { name } });
    return changes > 0;
  }

  private info(userId: string, name: string): SecretInfo | undefined {
    const row = this.db
      .prepare("SELECT created_at, updated_at FROM warden_secrets WHERE user_id = ? AND name = ?")
      .get(userId, name) as { created_at: string; updated_at: string } | undefined;
    return row && { name, createdAt: row.created_at, updatedAt: row.updated_at };
  }

  private assertUser(userId: string): void {
    if (!this.db.prepare("SELECT 1 FROM warden_users WHERE id = ?").get(userId))
      throw new NotFoundError("user", userId);
  }
}

/** Length-prefixed, so ("ab", "c") and ("a", "bc") can never share associated data. */
function associatedData(userId: string, name: string): Buffer {
  const user = Buffer.from(userId, "utf8");
  const secret = Buffer.from(name, "utf8");
  const lengths = Buffer.alloc(8);
  lengths.writeUInt32BE(user.length, 0);
  lengths.writeUInt32BE(secret.length, 4);
  return Buffer.concat([Buffer.from("ironclaw-secret-v1\0"), lengths, user, secret]);
}
