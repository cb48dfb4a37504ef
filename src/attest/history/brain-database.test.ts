import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { hashBrainDatabase } from "./brain-database.js";

// The brain database's digest names its serialized state (sqlite-serialized), on real SQLite files: with
// changes still in the write-ahead log, and after they were checkpointed into the file.

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function brain(): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), "ironclaw-brain-db-test-"));
  made.push(dir);
  mkdirSync(join(dir, "db"));
  return { dir, file: join(dir, "db", "ironclaw.db") };
}

const sha = (bytes: Buffer) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

describe("hashBrainDatabase", () => {
  it("hashes the serialized state, WAL included, and the same state the same once checkpointed", async () => {
    const { dir, file } = brain();
    const db = new Database(file);
    db.pragma("journal_mode = WAL");
    db.pragma("wal_autocheckpoint = 0");
    db.exec("CREATE TABLE notes (text TEXT)");
    db.pragma("wal_checkpoint(TRUNCATE)");
    const before = readFileSync(file);
    expect(await hashBrainDatabase(dir)).toBe(sha(before));

    db.prepare("INSERT INTO notes VALUES (?)").run("likes tea");
    // The file has not changed yet: the row is in the log only.
    expect(readFileSync(file).equals(before)).toBe(true);
    const withRow = await hashBrainDatabase(dir);
    expect(withRow).not.toBe(sha(before));
    expect(withRow).toBe(sha(db.serialize()));

    db.pragma("wal_checkpoint(TRUNCATE)");
    expect(readFileSync(file).equals(before)).toBe(false);
    expect(await hashBrainDatabase(dir)).toBe(withRow);
    db.close();
  });

  it("is of no bytes without a database, and of the bytes of a file that is not one", async () => {
    const { dir, file } = brain();
    expect(await hashBrainDatabase(dir)).toBe(sha(Buffer.alloc(0)));
    writeFileSync(file, "not a database");
    writeFileSync(`${file}-wal`, "not a log either");
    expect(await hashBrainDatabase(dir)).toBe(sha(Buffer.from("not a database")));
  });

  it("never follows a link a cell planted for the log", async () => {
    const { dir, file } = brain();
    const db = new Database(file);
    db.exec("CREATE TABLE notes (text TEXT)");
    db.close();
    const elsewhere = join(dir, "host-file");
    writeFileSync(elsewhere, "a host file");
    symlinkSync(elsewhere, `${file}-wal`);
    expect(await hashBrainDatabase(dir)).toBe(sha(readFileSync(file)));
    expect(readFileSync(elsewhere, "utf8")).toBe("a host file");
  });
});
