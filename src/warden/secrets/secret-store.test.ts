import { chmodSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AuditStore } from "../audit-store.js";
import { openHostDb } from "../host-db.js";
import { UserStore } from "../user-store.js";
import { SECRETS_KEY_FILE, SecretKeyError, SecretKeyring } from "./secret-key.js";
import { SecretStore, SecretUnreadableError } from "./secret-store.js";

const VALUE = "ghp_TopSecretValue0123456789abcdef";
let home = "";
let db: Database.Database;
let audit: AuditStore;
let store: SecretStore;

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), "ironclaw-secrets-"));
  db = openHostDb(home);
  const users = new UserStore(db);
  await users.add("alice");
  await users.add("bob");
  audit = new AuditStore(db);
  store = new SecretStore(db, new SecretKeyring(home), { audit: (e) => audit.record(e) });
});
afterEach(() => {
  db.close();
  rmSync(home, { recursive: true, force: true });
});

describe("SecretStore", () => {
  it("round-trips a value through a real host.db, reopened with a fresh keyring", () => {
    store.set("alice", "GITHUB_TOKEN", VALUE, "cli");
    db.close();
    db = openHostDb(home);
    const reopened = new SecretStore(db, new SecretKeyring(home));
    expect(reopened.get("alice", "GITHUB_TOKEN")).toBe(VALUE);
    expect(reopened.get("bob", "GITHUB_TOKEN")).toBeUndefined();
    expect(reopened.list("alice").map((s) => s.name)).toEqual(["GITHUB_TOKEN"]);
  });

  it("makes secrets.key 0600 on first use only, and refuses one group or others can read", () => {
    const key = join(home, SECRETS_KEY_FILE);
    expect(() => statSync(key)).toThrow();
    store.set("alice", "A_TOKEN", "v", "cli");
    expect(statSync(key).mode & 0o777).toBe(0o600);
    expect(statSync(key).size).toBe(32);
    chmodSync(key, 0o640);
    expect(() => new SecretStore(db, new SecretKeyring(home)).get("alice", "A_TOKEN")).toThrow(
      /readable or writable by group or others \(mode 640\)/,
    );
  });

  it("refuses a key file that is a link or the wrong size", () => {
    const elsewhere = join(home, "elsewhere.key");
    writeFileSync(elsewhere, Buffer.alloc(32, 7), { mode: 0o600 });
    symlinkSync(elsewhere, join(home, SECRETS_KEY_FILE));
    expect(() => store.set("alice", "A_TOKEN", "v", "cli")).toThrow(SecretKeyError);
    rmSync(join(home, SECRETS_KEY_FILE));
    writeFileSync(join(home, SECRETS_KEY_FILE), Buffer.alloc(16), { mode: 0o600 });
    expect(() => new SecretStore(db, new SecretKeyring(home)).set("alice", "A", "v", "cli")).toThrow(
      /holds 16 bytes; a key is exactly 32/,
    );
  });

  it("refuses a tampered ciphertext", () => {
    store.set("alice", "GITHUB_TOKEN", VALUE, "cli");
    db.prepare(
      "UPDATE warden_secrets SET ciphertext = zeroblob(length(ciphertext)) WHERE user_id = 'alice'",
    ).run();
    expect(() => store.get("alice", "GITHUB_TOKEN")).toThrow(SecretUnreadableError);
  });

  it("refuses a row moved to another user or renamed (the user and name are authenticated)", () => {
    store.set("alice", "GITHUB_TOKEN", VALUE, "cli");
    db.prepare("UPDATE warden_secrets SET user_id = 'bob' WHERE user_id = 'alice'").run();
    expect(() => store.get("bob", "GITHUB_TOKEN")).toThrow(
      /secret GITHUB_TOKEN of user bob cannot be decrypted/,
    );
    db.prepare("UPDATE warden_secrets SET user_id = 'alice', name = 'OTHER' WHERE user_id = 'bob'").run();
    expect(() => store.get("alice", "OTHER")).toThrow(SecretUnreadableError);
  });

  it("seals each value under a fresh nonce: the same value twice gives different bytes", () => {
    store.set("alice", "ONE", VALUE, "cli");
    store.set("bob", "ONE", VALUE, "cli");
    const rows = db.prepare("SELECT nonce, ciphertext FROM warden_secrets").all() as Array<{
      nonce: Buffer;
      ciphertext: Buffer;
    }>;
    expect(rows[0]?.nonce.equals(rows[1]?.nonce ?? Buffer.alloc(0))).toBe(false);
    expect(rows[0]?.ciphertext.equals(rows[1]?.ciphertext ?? Buffer.alloc(0))).toBe(false);
  });

  it("names the field and the rule of a bad name or value, without quoting the value", () => {
    expect(() => store.set("alice", "lower", "v", "cli")).toThrow(/^name: must be 1-64 capital letters/);
    expect(() => store.set("alice", "HTTPS_PROXY", "v", "cli")).toThrow(/^name: must not be a variable/);
    expect(() => store.set("alice", "A", "x".repeat(8193), "cli")).toThrow(
      /^value: must be at most 8192 bytes/,
    );
    expect(() => store.set("alice", "A", "ok\r\nX-Evil: 1", "cli")).toThrow(
      /^value: must not contain line breaks/,
    );
    store.set("alice", "A", "y".repeat(8192), "cli");
    expect(() => store.set("nobody", "A", "v", "cli")).toThrow(/user nobody not found/);
  });

  it("forgets a removed user's secrets with the user", () => {
    store.set("bob", "GITHUB_TOKEN", VALUE, "cli");
    new UserStore(db).remove("bob");
    expect(db.prepare("SELECT COUNT(*) FROM warden_secrets WHERE user_id = 'bob'").pluck().get()).toBe(0);
  });

  it("audits set and remove by name, never with the value", () => {
    store.set("alice", "GITHUB_TOKEN", VALUE, "user:alice");
    expect(store.remove("alice", "GITHUB_TOKEN", "user:alice")).toBe(true);
    expect(store.remove("alice", "GITHUB_TOKEN", "user:alice")).toBe(false);
    expect(store.get("alice", "GITHUB_TOKEN")).toBeUndefined();
    const trail = audit.list({ userId: "alice" });
    expect(trail.map((r) => r.action)).toEqual(["secret.removed", "secret.set"]);
    expect(trail[1]?.detail).toEqual({ name: "GITHUB_TOKEN" });
    expect(JSON.stringify(trail)).not.toContain(VALUE);
  });
});
