import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HOST_DB_FILE, openHostDb } from "./host-db.js";
import { LoginLinks } from "./login-links.js";
import { UserStore } from "./user-store.js";
import { WebSessions } from "./web-sessions.js";

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "ironclaw-hostdb-"));
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("openHostDb", () => {
  it("creates the home and host.db readable by the host user only", () => {
    const home = join(root, "home");
    openHostDb(home).close();
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, HOST_DB_FILE)).mode & 0o777).toBe(0o600);
  });

  it("runs in WAL mode with foreign keys and a busy timeout, and has every store's table", () => {
    const db = openHostDb(root);
    try {
      expect(db.pragma("journal_mode", { simple: true })).toBe("wal");
      expect(db.pragma("foreign_keys", { simple: true })).toBe(1);
      expect(db.pragma("busy_timeout", { simple: true })).toBe(5000);
      const tables = db
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .pluck()
        .all();
      expect(tables).toEqual([
        "budget_alerts",
        "budget_caps",
        "budget_spend",
        "budget_time_zones",
        "channel_links",
        "channel_pairing_codes",
        "conversation_entries",
        "conversations",
        "soul_baseline",
        "soul_changes",
        "soul_guard_users",
        "usage_calls",
        "warden_audit",
        "warden_host_variables",
        "warden_login_codes",
        "warden_secret_bindings",
        "warden_secrets",
        "warden_settings_proposals",
        "warden_tokens",
        "warden_users",
        "warden_web_sessions",
      ]);
    } finally {
      db.close();
    }
  });

  it("opens an existing host.db again without losing rows", () => {
    const first = openHostDb(root);
    first
      .prepare(
        "INSERT INTO warden_users (id, is_admin, created_at, cell_uid) VALUES ('alice', 0, '2026-01-01T00:00:00.000Z', 200000)",
      )
      .run();
    first.close();
    const again = openHostDb(root);
    try {
      expect(again.prepare("SELECT id FROM warden_users").pluck().all()).toEqual(["alice"]);
    } finally {
      again.close();
    }
  });

  it("migrates a host.db from before sign-in epochs: its users, sessions and login codes keep working", () => {
    // The three tables as they were before sign_in_epoch / epoch existed, with one row each.
    const old = new Database(join(root, HOST_DB_FILE));
    old.exec(`
      CREATE TABLE warden_users (id TEXT PRIMARY KEY, is_admin INTEGER NOT NULL, created_at TEXT NOT NULL,
        cell_uid INTEGER NOT NULL UNIQUE) WITHOUT ROWID;
      CREATE TABLE warden_web_sessions (id_hash BLOB PRIMARY KEY, user_id TEXT NOT NULL REFERENCES
        warden_users(id) ON DELETE CASCADE, created_at TEXT NOT NULL, expires_at TEXT NOT NULL) WITHOUT ROWID;
      CREATE TABLE warden_login_codes (code_hash BLOB PRIMARY KEY, user_id TEXT NOT NULL REFERENCES
        warden_users(id) ON DELETE CASCADE, created_at TEXT NOT NULL, expires_at TEXT NOT NULL) WITHOUT ROWID;
      INSERT INTO warden_users VALUES ('alice', 0, '2026-01-01T00:00:00.000Z', 200000);`);
    const cookie = "c".repeat(43);
    const code = "k".repeat(43);
    const sha = (v: string) => createHash("sha256").update(v).digest();
    old
      .prepare(
        "INSERT INTO warden_web_sessions VALUES (?, 'alice', '2026-01-01T00:00:00.000Z', '2999-01-01T00:00:00.000Z')",
      )
      .run(sha(cookie));
    old
      .prepare(
        "INSERT INTO warden_login_codes VALUES (?, 'alice', '2026-01-01T00:00:00.000Z', '2999-01-01T00:00:00.000Z')",
      )
      .run(sha(code));
    old.close();

    const db = openHostDb(root);
    try {
      const sessions = new WebSessions(db);
      expect(sessions.resolve(cookie)?.userId).toBe("alice");
      expect(new LoginLinks(db).redeem(code)).toEqual({ userId: "alice", epoch: 0 });
      // And the migrated session ends like any other.
      new UserStore(db).endSignIns("alice");
      expect(sessions.resolve(cookie)).toBeUndefined();
    } finally {
      db.close();
    }
    // Opening it again migrates nothing twice.
    openHostDb(root).close();
  });
});
