import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { InvalidInputError, NotFoundError } from "../core/index.js";
import { openHostDb } from "./host-db.js";
import { UserStore } from "./user-store.js";
import { SESSION_COOKIE, signOutEverywhere, WebSessions } from "./web-sessions.js";

let home: string;
let db: Database.Database;
let clock: number;
let sessions: WebSessions;
let users: UserStore;

/** A session opened under the user's current sign-in epoch, as the login routes open one. */
function open(userId: string, ttlMs = 60_000) {
  const session = sessions.create(userId, ttlMs, users.signInEpoch(userId) ?? -1);
  if (!session) throw new Error(`no session for ${userId}`);
  return session;
}

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), "ironclaw-sessions-"));
  db = openHostDb(home);
  clock = Date.parse("2026-03-01T12:00:00Z");
  sessions = new WebSessions(db, { now: () => clock });
  users = new UserStore(db);
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
    const { id, expiresAt } = open("alice");
    expect(expiresAt).toBe("2026-03-01T12:01:00.000Z");
    expect(sessions.resolve(id)).toEqual({ userId: "alice", admin: false, expiresAt });
    clock += 59_999;
    expect(sessions.resolve(id)?.userId).toBe("alice");
    clock += 1;
    expect(sessions.resolve(id)).toBeUndefined();
    expect(db.prepare("SELECT count(*) FROM warden_web_sessions").pluck().get()).toBe(0);
  });

  it("stores only a hash of the cookie value", () => {
    const { id } = open("alice");
    expect(Buffer.from(db.serialize()).includes(Buffer.from(id))).toBe(false);
  });

  it("reports the admin flag of the session's user", () => {
    expect(sessions.resolve(open("root").id)?.admin).toBe(true);
  });

  it("a revoked session and an unknown cookie resolve to nothing", () => {
    const { id } = open("alice");
    sessions.revoke(id);
    expect(sessions.resolve(id)).toBeUndefined();
    expect(sessions.resolve("x".repeat(43))).toBeUndefined();
    expect(sessions.resolve("not a cookie")).toBeUndefined();
  });

  it("revokeAllFor ends every session of one user and no other", () => {
    const a1 = open("alice").id;
    const a2 = open("alice").id;
    const r = open("root").id;
    expect(sessions.revokeAllFor("alice")).toBe(2);
    expect(sessions.resolve(a1)).toBeUndefined();
    expect(sessions.resolve(a2)).toBeUndefined();
    expect(sessions.resolve(r)?.userId).toBe("root");
  });

  it("refuses an unknown user and a ttl that is not a positive whole number", () => {
    expect(() => sessions.create("nobody", 60_000, 0)).toThrow(NotFoundError);
    for (const ttl of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])
      expect(() => sessions.create("alice", ttl, 0)).toThrow(InvalidInputError);
  });

  it("rotating the token ends every session of the user at once, and no other user's", async () => {
    const a1 = open("alice").id;
    const a2 = open("alice").id;
    const r = open("root").id;
    expect(sessions.resolve(a1)?.userId).toBe("alice");
    await users.rotateToken("alice");
    const aliceRows = () =>
      db.prepare("SELECT count(*) FROM warden_web_sessions WHERE user_id = 'alice'").pluck().get();
    expect(sessions.resolve(a1)).toBeUndefined();
    expect(sessions.resolve(r)?.userId).toBe("root");
    // An ended row is deleted when it is met, and the rest when the next session is opened.
    expect(aliceRows()).toBe(1);
    const fresh = open("alice").id;
    expect(aliceRows()).toBe(1);
    expect(sessions.resolve(a2)).toBeUndefined();
    expect(sessions.resolve(fresh)?.userId).toBe("alice");
  });

  it("a session whose token was rotated while it was being checked is not opened", async () => {
    // The login route read epoch 0 with the token, then a rotation committed before the session was made.
    const epoch = users.signInEpoch("alice") ?? -1;
    await users.rotateToken("alice");
    expect(sessions.create("alice", 60_000, epoch)).toBeUndefined();
    expect(db.prepare("SELECT count(*) FROM warden_web_sessions").pluck().get()).toBe(0);
  });

  it("signing out everywhere ends the user's sessions and counts the live ones; tokens keep working", async () => {
    const { token } = await users.add("carol");
    open("carol");
    open("carol");
    const expired = open("carol", 1_000).id;
    const r = open("root").id;
    clock += 2_000;
    expect(signOutEverywhere({ users, webSessions: sessions }, "carol")).toBe(2);
    expect(sessions.resolve(expired)).toBeUndefined();
    expect(sessions.resolve(r)?.userId).toBe("root");
    expect(await users.authenticate(token)).toMatchObject({ userId: "carol" });
    expect(() => signOutEverywhere({ users, webSessions: sessions }, "nobody")).toThrow(NotFoundError);
  });

  it("announces ended sign-ins to listeners in this process", async () => {
    const heard: string[] = [];
    const stop = users.onSignInsEnded((userId) => heard.push(userId));
    await users.rotateToken("alice");
    signOutEverywhere({ users, webSessions: sessions }, "root");
    users.remove("alice");
    stop();
    await users.rotateToken("root");
    expect(heard).toEqual(["alice", "root", "alice"]);
  });
});
