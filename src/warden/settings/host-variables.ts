import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type Database from "better-sqlite3";
import type { SecretKeyring } from "../secrets/index.js";

// The values of variables ironclawd.toml names for secrets (`bot_token_env = "SLACK_BOT_TOKEN"`), pasted by an
// admin into the warden's form instead of into a chat: sealed in host.db like users' secrets, under the host's
// secrets.key, and given to the warden as environment variables at its start. The warden's real environment wins
// where it sets the same name: the operator's own setting is never overridden from a web form.
const DDL = `
CREATE TABLE IF NOT EXISTS warden_host_variables (
  name TEXT PRIMARY KEY,
  nonce BLOB NOT NULL,
  ciphertext BLOB NOT NULL,
  tag BLOB NOT NULL,
  updated_at TEXT NOT NULL
) WITHOUT ROWID;
`;

export function migrateHostVariableTables(db: Database.Database): void {
  db.exec(DDL);
}

export class HostVariables {
  constructor(
    private readonly db: Database.Database,
    private readonly keyring: SecretKeyring,
    private readonly now: () => Date = () => new Date(),
  ) {}

  set(name: string, value: string): void {
    const nonce = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.keyring.valueKey(), nonce);
    cipher.setAAD(associatedData(name));
    const ciphertext = Buffer.concat([cipher.update(value, "utf8"), cipher.final()]);
    this.db
      .prepare(
        `INSERT INTO warden_host_variables (name, nonce, ciphertext, tag, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (name) DO UPDATE SET nonce = excluded.nonce, ciphertext = excluded.ciphertext,
           tag = excluded.tag, updated_at = excluded.updated_at`,
      )
      .run(name, nonce, ciphertext, cipher.getAuthTag(), this.now().toISOString());
  }

  has(name: string): boolean {
    return this.db.prepare("SELECT 1 FROM warden_host_variables WHERE name = ?").get(name) !== undefined;
  }

  /** Every stored variable with its value, for the warden's environment at start; none read, no key is made. */
  values(): Record<string, string> {
    const rows = this.db
      .prepare("SELECT name, nonce, ciphertext, tag FROM warden_host_variables")
      .all() as Array<{
      name: string;
      nonce: Buffer;
      ciphertext: Buffer;
      tag: Buffer;
    }>;
    const out: Record<string, string> = {};
    if (rows.length === 0) return out;
    const key = this.keyring.valueKey();
    for (const row of rows) {
      const decipher = createDecipheriv("aes-256-gcm", key, row.nonce);
      decipher.setAAD(associatedData(row.name));
      decipher.setAuthTag(row.tag);
      out[row.name] = Buffer.concat([decipher.update(row.ciphertext), decipher.final()]).toString("utf8");
    }
    return out;
  }
}

function associatedData(name: string): Buffer {
  return Buffer.concat([Buffer.from("ironclaw-host-variable-v1\0"), Buffer.from(name, "utf8")]);
}
