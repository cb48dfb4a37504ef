import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { reportBrainState } from "./brain-state.js";

const sha = (bytes: Buffer | string) => createHash("sha256").update(bytes).digest("hex");

let root = "";
afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("a cell's report of its brain", () => {
  it("lists the markdown outside db/ and .git, never through a link, with the database's serialized hash", () => {
    root = mkdtempSync(join(tmpdir(), "ironclaw-brain-state-"));
    const outside = mkdtempSync(join(tmpdir(), "ironclaw-outside-"));
    writeFileSync(join(outside, "secret.md"), "host secret\n");
    mkdirSync(join(root, "notes/deep"), { recursive: true });
    mkdirSync(join(root, "db"));
    mkdirSync(join(root, ".git"));
    writeFileSync(join(root, "soul.md"), "# Soul\n");
    writeFileSync(join(root, "notes/deep/plan.md"), "plan\n");
    writeFileSync(join(root, "notes/todo.txt"), "not markdown\n");
    writeFileSync(join(root, "db/notes.md"), "the database's folder\n");
    writeFileSync(join(root, ".git/HEAD.md"), "a repository\n");
    symlinkSync(join(outside, "secret.md"), join(root, "linked.md"));
    symlinkSync(outside, join(root, "linked-dir"));
    const db = new Database(join(root, "db/ironclaw.db"));
    db.pragma("journal_mode = WAL");
    db.exec("CREATE TABLE t (x); INSERT INTO t VALUES (1)");
    const serialized = db.serialize();

    const report = reportBrainState(root);
    db.close();
    rmSync(outside, { recursive: true, force: true });
    expect(report.files).toEqual([
      { path: "notes/deep/plan.md", sha256: sha("plan\n"), size_bytes: 5 },
      { path: "soul.md", sha256: sha("# Soul\n"), size_bytes: 7 },
    ]);
    // Taken through its own connection while the writer's pages sit in the write-ahead log.
    expect(report.db_snapshot_sha256).toBe(`sha256:${sha(serialized)}`);
  });

  it("hashes no bytes for a brain without a database yet", () => {
    root = mkdtempSync(join(tmpdir(), "ironclaw-brain-state-"));
    expect(reportBrainState(root)).toEqual({
      kind: "brain_state",
      files: [],
      db_snapshot_sha256: `sha256:${sha("")}`,
    });
  });
});
