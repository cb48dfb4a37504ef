import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { HOST_DB_FILE, openHostDb } from "./host-db.js";

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
        "warden_login_codes",
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
    first.prepare("INSERT INTO warden_users VALUES ('alice', 0, '2026-01-01T00:00:00.000Z', 200000)").run();
    first.close();
    const again = openHostDb(root);
    try {
      expect(again.prepare("SELECT id FROM warden_users").pluck().all()).toEqual(["alice"]);
    } finally {
      again.close();
    }
  });
});
