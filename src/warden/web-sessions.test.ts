import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidInputError, NotFoundError } from "../core/index.js";
import { openHostDb } from "./host-db.js";
import { UserStore } from "./user-store.js";
import { SESSION_COOKIE, WebSessions } from "./web-sessions.js";

let home: string;
let db: Database.Database;
let clock: number;
let sessions: WebSessions;

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), "ironclaw-sessions-"));
  db = openHostDb(home);
  clock = Date.parse("2026-03-01T12:00:00Z");
  sessions = new WebSessions(db, { now: () => clock });
  const users = new UserStore(db);
  await users.add("alice");
  await users.add("root", { admin: true });
});
afterEach(() => {
  db.close();
  rmSync(home, { recursive: true, force: true });
});

describe("web sessions", () => {
  it("a new session resolves to its user until it expires", () => {
    expect(SESSION_COOKIE).toBe("ironclaw_session");
    const { id, expiresAt } = sessions.create("alice", 60_000);
    expect(expiresAt).toBe("2026-03-01T12:01:00.000Z");
    expect(sessions.resolve(id)).toEqual({ userId: "alice", admin: false, expiresAt });
    clock += 59_999;
    expect(sessions.resolve(id)?.userId).toBe("alice");
    clock += 1;
    expect(sessions.resolve(id)).toBeUndefined();
    expect(db.prepare("SELECT count(*) FROM warden_web_sessions").pluck().get()).toBe(0);
  });

  it("stores only a hash of the cookie value", () => {
    const { id } = sessions.create("alice", 60_000);
    expect(Buffer.from(db.serialize()).includes(Buffer.from(id))).toBe(false);
  });

  it("reports the admin flag of the session's user", () => {
    expect(sessions.resolve(sessions.create("root", 60_000).id)?.admin).toBe(true);
  });

  it("a revoked session and an unknown cookie resolve to nothing", () => {
    const { id } = sessions.create("alice", 60_000);
    sessions.revoke(id);
    expect(sessions.resolve(id)).toBeUndefined();
    expect(sessions.resolve("x".repeat(43))).toBeUndefined();
    expect(sessions.resolve("not a cookie")).toBeUndefined();
  });

  it("revokeAllFor ends every session of one user and no other", () => {
    const a1 = sessions.create("alice", 60_000).id;
    const a2 = sessions.create("alice", 60_000).id;
    const r = sessions.create("root", 60_000).id;
    expect(sessions.revokeAllFor("alice")).toBe(2);
    expect(sessions.resolve(a1)).toBeUndefined();
    expect(sessions.resolve(a2)).toBeUndefined();
    expect(sessions.resolve(r)?.userId).toBe("root");
  });

  it("refuses an unknown user and a ttl that is not a positive whole number", () => {
    expect(() => sessions.create("nobody", 60_000)).toThrow(NotFoundError);
    for (const ttl of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => sessions.create("alice", ttl)).toThrow(InvalidInputError);
  });
});
