import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import type Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NotFoundError } from "../core/index.js";
import { openHostDb } from "./host-db.js";
import { FIRST_CELL_UID, InvalidUserNameError, UserExistsError, UserStore } from "./user-store.js";
import { WebSessions } from "./web-sessions.js";

let home: string;
let db: Database.Database;
let users: UserStore;

beforeEach(() => {
  home = mkdtempSync(`${tmpdir()}/ironclaw-users-`);
  db = openHostDb(home);
  users = new UserStore(db);
});
afterEach(() => {
  db.close();
  rmSync(home, { recursive: true, force: true });
});

describe("API tokens", () => {
  it("a new user's token authenticates as that user", async () => {
    const { user, token } = await users.add("alice");
    expect(token).toMatch(/^ick_[0-9a-f]{16}_[A-Za-z0-9_-]{43}$/);
    expect(user).toMatchObject({ id: "alice", admin: false });
    expect(await users.authenticate(token)).toEqual({ userId: "alice", admin: false, epoch: 0 });
    expect(await users.authenticate(token)).toEqual({ userId: "alice", admin: false, epoch: 0 });
  });

  it("stores no token secret in clear", async () => {
    const { token } = await users.add("alice");
    const secret = token.split("_").slice(2).join("_");
    const rows = db.prepare("SELECT * FROM warden_tokens").all() as Array<Record<string, unknown>>;
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(secret);
    expect(Buffer.from(db.serialize()).includes(Buffer.from(secret))).toBe(false);
  });

  it("a wrong secret with a real token id fails", async () => {
    const { token } = await users.add("alice");
    const at = token.length - 10;
    const wrong = `${token.slice(0, at)}${token[at] === "A" ? "B" : "A"}${token.slice(at + 1)}`;
    expect(await users.authenticate(wrong)).toBeUndefined();
    expect(await users.authenticate(token)).toBeDefined();
  });

  it("malformed tokens are refused", async () => {
    const { token } = await users.add("alice");
    for (const bad of [
      "",
      "ick_",
      token.slice(0, -1),
      `${token}x`,
      token.replace("ick_", "ikc_"),
      ` ${token}`,
    ])
      expect(await users.authenticate(bad)).toBeUndefined();
  });

  it("a rotated token fails at once, even after it was cached", async () => {
    const { token } = await users.add("alice");
    expect(await users.authenticate(token)).toBeDefined();
    const next = await users.rotateToken("alice");
    expect(await users.authenticate(token)).toBeUndefined();
    expect(await users.authenticate(next)).toEqual({ userId: "alice", admin: false, epoch: 1 });
  });

  it("tokenIdIfKnown names the id of an existing token only, whatever its secret", async () => {
    const { token } = await users.add("alice");
    const id = token.split("_")[1];
    expect(users.tokenIdIfKnown(token)).toBe(id);
    expect(users.tokenIdIfKnown(`${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}`)).toBe(id);
    expect(users.tokenIdIfKnown(`ick_0123456789abcdef_${"A".repeat(43)}`)).toBeUndefined();
    expect(users.tokenIdIfKnown("ick_wrong")).toBeUndefined();
    await users.rotateToken("alice");
    expect(users.tokenIdIfKnown(token)).toBeUndefined();
  });

  it("removal through a second store on the same file ends the first store's cached token", async () => {
    const { token } = await users.add("alice");
    expect(await users.authenticate(token)).toBeDefined();
    const other = openHostDb(home);
    try {
      new UserStore(other).remove("alice");
    } finally {
      other.close();
    }
    expect(await users.authenticate(token)).toBeUndefined();
  });

  it("rotation through a second store on the same file ends the first store's cached token", async () => {
    const { token } = await users.add("alice");
    expect(await users.authenticate(token)).toBeDefined();
    const other = openHostDb(home);
    try {
      await new UserStore(other).rotateToken("alice");
    } finally {
      other.close();
    }
    expect(await users.authenticate(token)).toBeUndefined();
  });

  it("a cached hit skips scrypt", async () => {
    const { token } = await users.add("alice");
    const first = performance.now();
    await users.authenticate(token);
    const slow = performance.now() - first;
    const again = performance.now();
    for (let i = 0; i < 20; i++) await users.authenticate(token);
    expect((performance.now() - again) / 20).toBeLessThan(slow / 4);
  });
});

describe("users", () => {
  it("refuses an invalid name, naming the field and the rule", async () => {
    for (const bad of ["", "-alice", "al ice", "a/b", "x".repeat(65), "ålice"]) {
      const error = await users.add(bad).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidUserNameError);
      expect(error).toMatchObject({ code: "invalid_user_name", path: "name" });
      expect((error as Error).message).toMatch(/^name: .* must be 1-64 letters, digits, - or _/);
    }
    expect(users.list()).toEqual([]);
  });

  it("refuses an existing name", async () => {
    await users.add("alice");
    await expect(users.add("alice")).rejects.toBeInstanceOf(UserExistsError);
    await expect(users.add("alice")).rejects.toMatchObject({ code: "user_exists", path: "name" });
    await expect(users.add("ALICE")).rejects.toThrow(
      'name: user "ALICE" differs from user "alice" only in case',
    );
  });

  it("gives each user a unique cell uid that stays the same, reusing only a freed one", async () => {
    const a = (await users.add("a")).user;
    const b = (await users.add("b")).user;
    const c = (await users.add("c")).user;
    expect([a.cellUid, b.cellUid, c.cellUid]).toEqual([
      FIRST_CELL_UID,
      FIRST_CELL_UID + 1,
      FIRST_CELL_UID + 2,
    ]);
    users.remove("b");
    expect(users.get("a")?.cellUid).toBe(FIRST_CELL_UID);
    expect(users.get("c")?.cellUid).toBe(FIRST_CELL_UID + 2);
    expect((await users.add("d")).user.cellUid).toBe(FIRST_CELL_UID + 1);
    expect((await users.add("e")).user.cellUid).toBe(FIRST_CELL_UID + 3);
    const uids = users.list().map((u) => u.cellUid);
    expect(new Set(uids).size).toBe(uids.length);
    expect(() => db.prepare("UPDATE warden_users SET cell_uid = ? WHERE id = 'a'").run(c.cellUid)).toThrow(
      /UNIQUE/,
    );
  });

  it("remove deletes the user's tokens and web sessions", async () => {
    const { token } = await users.add("alice");
    const sessions = new WebSessions(db);
    const { id } = sessions.create("alice", 60_000, 0) ?? { id: "" };
    expect(sessions.resolve(id)?.userId).toBe("alice");
    users.remove("alice");
    expect(users.get("alice")).toBeUndefined();
    expect(await users.authenticate(token)).toBeUndefined();
    expect(sessions.resolve(id)).toBeUndefined();
    expect(db.prepare("SELECT count(*) AS n FROM warden_tokens").get()).toEqual({ n: 0 });
    expect(() => users.remove("alice")).toThrow(NotFoundError);
  });

  it("ensureAdmin creates admin once and then returns the existing admin", async () => {
    const admin = users.ensureAdmin();
    expect(admin).toMatchObject({ id: "admin", admin: true });
    expect(users.ensureAdmin()).toEqual(admin);
    expect(users.list()).toHaveLength(1);
  });

  it("ensureAdmin keeps an admin added by hand and adds no other", async () => {
    await users.add("root-person", { admin: true });
    expect(users.ensureAdmin().id).toBe("root-person");
    expect(users.get("admin")).toBeUndefined();
  });

  it("ensureAdmin does not promote a non-admin user called admin", async () => {
    const { token } = await users.add("admin");
    expect(() => users.ensureAdmin()).toThrow(UserExistsError);
    expect(await users.authenticate(token)).toEqual({ userId: "admin", admin: false, epoch: 0 });
  });
});
