import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AuditStore } from "./audit-store.js";
import { openHostDb } from "./host-db.js";

let home: string;
let db: Database.Database;
let audit: AuditStore;

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "ironclaw-audit-"));
  db = openHostDb(home);
  let clock = Date.parse("2026-03-01T12:00:00Z");
  // Each record one second after the last, so the expected `at` is exact.
  audit = new AuditStore(db, {
    now: () => {
      clock += 1_000;
      return new Date(clock);
    },
  });
});
afterEach(() => {
  db.close();
  rmSync(home, { recursive: true, force: true });
});

describe("warden audit", () => {
  it("lists records newest first, filtered by user and action", () => {
    audit.record({ userId: "alice", actor: "warden", action: "login.ok", detail: { ip: "203.0.113.7" } });
    audit.record({ actor: "cli", action: "user.added", detail: { admin: false } });
    audit.record({
      userId: "alice",
      actor: "warden",
      action: "proxy.refused",
      detail: { host: "169.254.169.254" },
    });
    audit.record({ userId: "bob", actor: "warden", action: "login.ok" });

    expect(audit.list().map((r) => r.action)).toEqual([
      "login.ok",
      "proxy.refused",
      "user.added",
      "login.ok",
    ]);
    expect(audit.list({ userId: "alice" }).map((r) => r.action)).toEqual(["proxy.refused", "login.ok"]);
    expect(audit.list({ action: "login.ok" }).map((r) => r.userId)).toEqual(["bob", "alice"]);
    expect(audit.list({ userId: "alice", action: "login.ok" })).toEqual([
      {
        id: 1,
        at: "2026-03-01T12:00:01.000Z",
        userId: "alice",
        actor: "warden",
        action: "login.ok",
        detail: { ip: "203.0.113.7" },
      },
    ]);
    expect(audit.list({ limit: 2 })).toHaveLength(2);
    expect(audit.list({ userId: "bob" })[0]?.detail).toEqual({});
  });

  it("refuses to change or delete a record", () => {
    audit.record({ actor: "warden", action: "soul.approved" });
    expect(() => db.prepare("UPDATE warden_audit SET action = 'x'").run()).toThrow(/append-only/);
    expect(() => db.prepare("DELETE FROM warden_audit").run()).toThrow(/append-only/);
    expect(audit.list()).toHaveLength(1);
  });
});
