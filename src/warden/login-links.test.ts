import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { NotFoundError } from "../core/index.js";
import { openHostDb } from "./host-db.js";
import { LoginLinks } from "./login-links.js";
import { UserStore } from "./user-store.js";

let home: string;
let db: Database.Database;
let clock: number;
let links: LoginLinks;

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), "ironclaw-links-"));
  db = openHostDb(home);
  clock = Date.parse("2026-03-01T12:00:00Z");
  links = new LoginLinks(db, { now: () => clock });
  await new UserStore(db).add("alice");
});
afterEach(() => {
  db.close();
  rmSync(home, { recursive: true, force: true });
});

/** Redeems `code` in a separate Node process that waits until `startAt`, so several fire at the same moment. */
function redeemInProcess(code: string, startAt: number): Promise<string> {
  const hostDb = fileURLToPath(new URL("./host-db.ts", import.meta.url));
  const loginLinks = fileURLToPath(new URL("./login-links.ts", import.meta.url));
  const script = `
    import { openHostDb } from ${JSON.stringify(hostDb)};
    import { LoginLinks } from ${JSON.stringify(loginLinks)};
    const db = openHostDb(${JSON.stringify(home)});
    const links = new LoginLinks(db);
    while (Date.now() < ${startAt}) {}
    process.stdout.write(JSON.stringify(links.redeem(${JSON.stringify(code)})?.userId ?? null));
    db.close();`;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script]);
    let out = "";
    let err = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d.toString();
    });
    child.stderr.on("data", (d: Buffer) => {
      err += d.toString();
    });
    child.on("error", reject);
    child.on("close", (status) =>
      status === 0 ? resolve(out) : reject(new Error(`exit ${status}: ${err}`)),
    );
  });
}

describe("login links", () => {
  it("a code logs its user in once", () => {
    const code = links.issue("alice", 60_000);
    expect(links.redeem(code)).toEqual({ userId: "alice", epoch: 0 });
    expect(links.redeem(code)).toBeUndefined();
  });

  it("an unused code dies with a token rotation or a sign-out everywhere", async () => {
    const users = new UserStore(db);
    const beforeRotation = links.issue("alice", 60_000);
    await users.rotateToken("alice");
    expect(links.redeem(beforeRotation)).toBeUndefined();
    const beforeSignOut = links.issue("alice", 60_000);
    users.endSignIns("alice");
    const after = links.issue("alice", 60_000);
    expect(links.redeem(beforeSignOut)).toBeUndefined();
    expect(links.redeem(after)).toEqual({ userId: "alice", epoch: 2 });
  });

  it("of several processes redeeming one code at the same moment, exactly one gets the user", async () => {
    const code = new LoginLinks(db).issue("alice", 60_000);
    const startAt = Date.now() + 3_000;
    const results = await Promise.all([1, 2, 3, 4].map(() => redeemInProcess(code, startAt)));
    expect(results.sort()).toEqual(['"alice"', "null", "null", "null"]);
  });

  it("an expired code fails", () => {
    const code = links.issue("alice", 60_000);
    clock += 60_000;
    expect(links.redeem(code)).toBeUndefined();
  });

  it("codes are stored hashed, and unknown or malformed codes fail", () => {
    const code = links.issue("alice", 60_000);
    expect(Buffer.from(db.serialize()).includes(Buffer.from(code))).toBe(false);
    expect(links.redeem("A".repeat(43))).toBeUndefined();
    expect(links.redeem(`${code}x`)).toBeUndefined();
    expect(links.redeem(code)?.userId).toBe("alice");
  });

  it("refuses a code for an unknown user", () => {
    expect(() => links.issue("nobody", 60_000)).toThrow(NotFoundError);
  });
});
