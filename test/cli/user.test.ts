import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openHostDb } from "../../src/warden/host-db.js";
import { UserStore } from "../../src/warden/user-store.js";
import { WebSessions } from "../../src/warden/web-sessions.js";
import { runIronclaw, runIronclawInProcess } from "./run-cli.js";

let root: string;
let home: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "ironclaw-cli-user-"));
  home = join(root, "home");
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The command's logic, in this process, on this file's home. */
const user = (...args: string[]) => runIronclawInProcess(["user", ...args], { env: { IRONCLAW_HOME: home } });
/** The binary: another process signing a user out while this one holds the database. */
const userProcess = (...args: string[]) => runIronclaw(["user", ...args], { env: { IRONCLAW_HOME: home } });

/** What the warden would answer for this token, read from the same host.db the CLI wrote. */
async function whoIs(token: string) {
  const db = openHostDb(home);
  try {
    return await new UserStore(db).authenticate(token);
  } finally {
    db.close();
  }
}

describe("ironclaw user", () => {
  it("add --json prints exactly the user and a token that authenticates", async () => {
    const { code, stdout } = await user("add", "alice", "--json");
    expect(code).toBe(0);
    expect(stdout).toMatch(/^\{"user":"alice","token":"ick_[0-9a-f]{16}_[A-Za-z0-9_-]{43}"\}\n$/);
    const { token } = JSON.parse(stdout) as { token: string };
    expect(await whoIs(token)).toMatchObject({ userId: "alice", admin: false });
    expect(statSync(home).mode & 0o777).toBe(0o700);
    expect(statSync(join(home, "host.db")).mode & 0o777).toBe(0o600);
  });

  it("add --admin prints the token once in words, and list shows both users", async () => {
    const added = await user("add", "root-person", "--admin");
    expect(added.code).toBe(0);
    expect(added.stdout).toContain("added admin user root-person (cell uid 200001)");
    expect(added.stdout).toMatch(/^token: ick_/m);

    const { code, stdout } = await user("list", "--json");
    expect(code).toBe(0);
    const rows = JSON.parse(stdout) as Array<{ user: string; admin: boolean; cell_uid: number }>;
    expect(rows.map((r) => [r.user, r.admin, r.cell_uid])).toEqual([
      ["alice", false, 200000],
      ["root-person", true, 200001],
    ]);
  });

  it("refuses a duplicate or invalid name with one line and exit 1", async () => {
    const dup = await user("add", "alice");
    expect(dup.code).toBe(1);
    expect(dup.stderr).toBe('ironclaw user: name: user "alice" is already taken\n');
    const bad = await user("add", "bad/name");
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/^ironclaw user: name: "bad\/name" must be 1-64 letters, digits, - or _.*\n$/);
  });

  it("token rotate replaces the token: the old one fails, the new one works", async () => {
    const first = JSON.parse((await user("add", "bob", "--json")).stdout) as { token: string };
    const { code, stdout } = await user("token", "rotate", "bob", "--json");
    expect(code).toBe(0);
    const next = JSON.parse(stdout) as { user: string; token: string };
    expect(next.user).toBe("bob");
    expect(await whoIs(first.token)).toBeUndefined();
    expect(await whoIs(next.token)).toMatchObject({ userId: "bob", admin: false });
  });

  it("remove ends the user's token; removing again is an error", async () => {
    const { token } = JSON.parse((await user("add", "carol", "--json")).stdout) as { token: string };
    const removed = await user("remove", "carol");
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain("removed user carol");
    expect(await whoIs(token)).toBeUndefined();
    const again = await user("remove", "carol");
    expect(again.code).toBe(1);
    expect(again.stderr).toBe("ironclaw user: user carol not found\n");
  });

  it("logout signs the user out everywhere: sessions end, the token still works", async () => {
    const { token } = JSON.parse((await user("add", "dave", "--json")).stdout) as { token: string };
    const db = openHostDb(home);
    let cookie = "";
    try {
      const epoch = new UserStore(db).signInEpoch("dave") ?? -1;
      cookie = new WebSessions(db).create("dave", 60_000, epoch)?.id ?? "";
    } finally {
      db.close();
    }
    // The one real-process journey of this file: the sign-out comes from another process, through the binary.
    const { code, stdout } = await userProcess("logout", "dave");
    expect(code).toBe(0);
    expect(stdout).toContain("signed dave out everywhere: 1 browser session(s) ended");
    const after = openHostDb(home);
    try {
      expect(new WebSessions(after).resolve(cookie)).toBeUndefined();
    } finally {
      after.close();
    }
    expect(await whoIs(token)).toMatchObject({ userId: "dave" });
    const nobody = await userProcess("logout", "nobody");
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toBe("ironclaw user: user nobody not found\n");
  }, 30_000);

  // Each of these fails while parsing, before any host.db is opened.
  it("usage mistakes exit 2 with the usage", async () => {
    for (const args of [
      [],
      ["add"],
      ["frob"],
      ["add", "a", "b"],
      ["list", "--admin"],
      ["token", "rotate"],
      ["logout"],
      ["add", "x", "--nope"],
    ]) {
      const { code, stderr } = await runIronclawInProcess(["user", ...args]);
      expect(code, args.join(" ")).toBe(2);
      expect(stderr).toContain("Usage: ironclaw user add <name>");
    }
  });
});
