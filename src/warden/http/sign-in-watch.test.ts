import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { openHostDb } from "../host-db.js";
import { UserStore } from "../user-store.js";
import { SignInWatch, type WatchedConnection } from "./sign-in-watch.js";

let home: string;
let db: Database.Database;
let users: UserStore;
let watch: SignInWatch;

beforeEach(async () => {
  home = mkdtempSync(join(tmpdir(), "ironclaw-watch-"));
  db = openHostDb(home);
  users = new UserStore(db);
  await users.add("alice");
  await users.add("bob");
  watch = new SignInWatch({ db, users, pollMs: 20 });
});
afterEach(() => {
  watch.close();
  db.close();
  rmSync(home, { recursive: true, force: true });
});

/** A connection whose sign-in holds while `valid` says so; records its checks and whether it was ended. */
function connection(userId: string, valid: () => boolean) {
  const seen = { checks: 0, ended: 0 };
  const c: WatchedConnection = {
    userId,
    stillSignedIn: async () => {
      seen.checks++;
      return valid();
    },
    end: () => {
      seen.ended++;
    },
  };
  return { c, seen };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 0));
const waitFor = async (done: () => boolean, ms = 2_000) => {
  const until = Date.now() + ms;
  while (!done() && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 10));
};

describe("the sign-in watch", () => {
  it("ends a user's connections as soon as this process ends their sign-ins, and checks no one else's", async () => {
    let aliceValid = true;
    const alice = connection("alice", () => aliceValid);
    const bob = connection("bob", () => true);
    watch.add(alice.c);
    watch.add(bob.c);
    aliceValid = false;
    users.endSignIns("alice");
    await settle();
    expect(alice.seen).toEqual({ checks: 1, ended: 1 });
    expect(bob.seen).toEqual({ checks: 0, ended: 0 });
    // Ended once: a second announcement does not end it again.
    users.endSignIns("alice");
    await settle();
    expect(alice.seen.ended).toBe(1);
  });

  it("keeps a connection whose credential still holds (a rotation it survived is not its own)", async () => {
    const alice = connection("alice", () => true);
    watch.add(alice.c);
    users.endSignIns("alice");
    await settle();
    expect(alice.seen).toEqual({ checks: 1, ended: 0 });
  });

  it("notices a change written by another process within its poll interval", async () => {
    let valid = true;
    const alice = connection("alice", () => valid);
    watch.add(alice.c);
    await new Promise((resolve) => setTimeout(resolve, 60));
    // Positive control: while nothing changes, nothing is checked.
    expect(alice.seen.checks).toBe(0);
    const other = openHostDb(home);
    try {
      valid = false;
      new UserStore(other).endSignIns("alice");
    } finally {
      other.close();
    }
    await waitFor(() => alice.seen.ended === 1);
    expect(alice.seen).toEqual({ checks: 1, ended: 1 });
  });

  it("ends a connection whose check fails, and forgets one that closed", async () => {
    const failing: WatchedConnection = {
      userId: "alice",
      stillSignedIn: () => Promise.reject(new Error("database closed")),
      end: () => ended.push("failing"),
    };
    const ended: string[] = [];
    const closed = connection("alice", () => false);
    watch.add(failing);
    const unwatch = watch.add(closed.c);
    unwatch();
    users.endSignIns("alice");
    await settle();
    expect(ended).toEqual(["failing"]);
    expect(closed.seen).toEqual({ checks: 0, ended: 0 });
  });
});
