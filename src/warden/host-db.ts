import { closeSync, constants, fchmodSync, mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { migrateAuditTables } from "./audit-store.js";
import { migrateBudgetTables, migrateUsageTables } from "./budget/index.js";
import { migrateChannelTables } from "./channels/channel-links.js";
import { migrateConversationTables } from "./conversations/index.js";
import { migrateLoginLinkTables } from "./login-links.js";
import { migrateSecretTables } from "./secrets/index.js";
import { migrateHostVariableTables, migrateSettingsTables } from "./settings/index.js";
import { migrateSoulTables } from "./soul/index.js";
import { migrateUserTables } from "./user-store.js";
import { migrateWebSessionTables } from "./web-sessions.js";

/** The warden's own database under IRONCLAW_HOME: users, credentials, sessions. Never mounted into a cell. */
export const HOST_DB_FILE = "host.db";

/**
 * Every store's migration, in dependency order (users first: other tables reference them). Each one is
 * idempotent, so adding a store is one line here.
 */
const MIGRATIONS: ReadonlyArray<(db: Database.Database) => void> = [
  migrateUserTables,
  migrateWebSessionTables,
  migrateLoginLinkTables,
  migrateAuditTables,
  migrateConversationTables,
  migrateSoulTables,
  migrateChannelTables,
  migrateBudgetTables,
  migrateUsageTables,
  migrateSecretTables,
  migrateSettingsTables,
  migrateHostVariableTables,
];

/** Opens (creating when missing) `<home>/host.db`, readable by the host user only, with every table migrated. */
export function openHostDb(home: string): Database.Database {
  mkdirSync(home, { recursive: true, mode: 0o700 });
  const file = join(home, HOST_DB_FILE);
  restrictMode(file);
  const db = new Database(file);
  try {
    db.pragma("journal_mode = WAL");
    db.pragma("foreign_keys = ON");
    db.pragma("busy_timeout = 5000");
    // Deleted and overwritten rows are zeroed, not left in free space: a forgotten passage, a removed user's
    // conversations or a rotated token's hash must not be readable from the file afterwards.
    db.pragma("secure_delete = ON");
    // One transaction, so a second process starting at the same moment never sees half the tables.
    db.transaction(() => {
      for (const migrate of MIGRATIONS) migrate(db);
    }).immediate();
  } catch (error) {
    db.close();
    throw error;
  }
  return db;
}

/**
 * Creates the file as 0600 before SQLite does (SQLite would use the umask) and tightens an existing one; the
 * -wal and -shm files SQLite makes later copy this mode. O_NOFOLLOW: a link planted at host.db is refused.
 */
function restrictMode(file: string): void {
  const fd = openSync(file, constants.O_RDWR | constants.O_CREAT | constants.O_NOFOLLOW, 0o600);
  try {
    fchmodSync(fd, 0o600);
  } finally {
    closeSync(fd);
  }
}
