import { link, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { FileOpRequest } from "../contracts/cell/index.js";
import { MAX_FILE_OP_BYTES, runFileOp } from "./brain-file-ops.js";

let base = "";
let brain = "";
const op = (fields: Pick<FileOpRequest, "op" | "path"> & { content?: string; encoding?: "base64" }) =>
  runFileOp(brain, {
    type: "FileOpRequest",
    user_id: "u",
    session_id: "s",
    msg_id: 1,
    timestamp: "2026-01-01T00:00:00Z",
    ...fields,
  });

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), "ironclaw-fileops-"));
  brain = join(base, "brain");
  await mkdir(join(brain, "db"), { recursive: true });
  await writeFile(join(base, "outside.md"), "secret");
});
afterEach(async () => rm(base, { recursive: true, force: true }));

describe("brain file operations", () => {
  it("writes a markdown file in a new folder and reads it back", async () => {
    expect(await op({ op: "write", path: "instructions/tone.md", content: "# Tone\n" })).toEqual({});
    expect(await op({ op: "read", path: "instructions/tone.md" })).toEqual({ content: "# Tone\n" });
    const listed = await op({ op: "list", path: "instructions" });
    expect(listed.entries?.map((e) => [e.path, e.kind, e.size_bytes])).toEqual([
      ["instructions/tone.md", "file", 7],
    ]);
  });

  it("refuses to follow a symlink out of the brain, for reading and for writing", async () => {
    await symlink(base, join(brain, "up"));
    expect(await op({ op: "read", path: "up/outside.md" })).toMatchObject({ error: { code: "forbidden" } });
    expect(await op({ op: "write", path: "up/new.md", content: "x" })).toMatchObject({
      error: { code: "forbidden" },
    });
    expect(await readFile(join(base, "outside.md"), "utf8")).toBe("secret");
  });

  it("refuses to write through a dangling symlink that points out of the brain", async () => {
    await symlink(join(base, "planted.md"), join(brain, "notes.md"));
    expect(await op({ op: "write", path: "notes.md", content: "x" })).toMatchObject({
      error: { code: "forbidden" },
    });
    await expect(readFile(join(base, "planted.md"), "utf8")).rejects.toThrow(/ENOENT/);
  });

  it("follows no symlink inside the brain either, and lists none", async () => {
    await mkdir(join(brain, "notes"));
    await writeFile(join(brain, "notes/a.md"), "a");
    await symlink(join(brain, "notes"), join(brain, "alias"));
    await symlink(join(brain, "notes/a.md"), join(brain, "a-link.md"));
    expect(await op({ op: "read", path: "alias/a.md" })).toMatchObject({ error: { code: "forbidden" } });
    expect(await op({ op: "read", path: "a-link.md" })).toMatchObject({ error: { code: "forbidden" } });
    expect(await op({ op: "write", path: "alias/b.md", content: "x" })).toMatchObject({
      error: { code: "forbidden" },
    });
    const listed = await op({ op: "list", path: "" });
    expect(listed.entries?.map((e) => e.path)).toEqual(["db", "notes"]);
  });

  it("refuses absolute paths and does not write a file that has another hard link", async () => {
    expect(await op({ op: "read", path: "/etc/hostname" })).toMatchObject({ error: { code: "forbidden" } });
    await link(join(base, "outside.md"), join(brain, "alias.md"));
    expect(await op({ op: "write", path: "alias.md", content: "x" })).toMatchObject({
      error: { code: "forbidden" },
    });
    expect(await readFile(join(base, "outside.md"), "utf8")).toBe("secret");
  });

  it("never writes or deletes in the database folder, nor files that are not markdown or TOML", async () => {
    expect(await op({ op: "write", path: "db/notes.md", content: "x" })).toMatchObject({
      error: { code: "forbidden" },
    });
    expect(await op({ op: "write", path: "run.sh", content: "x" })).toMatchObject({
      error: { code: "forbidden" },
    });
    await writeFile(join(brain, "db/ironclaw.db"), "");
    expect(await op({ op: "delete", path: "db/ironclaw.db" })).toMatchObject({
      error: { code: "forbidden" },
    });
  });

  it("reports missing files and files too large for one frame", async () => {
    expect(await op({ op: "read", path: "nope.md" })).toMatchObject({ error: { code: "not_found" } });
    await writeFile(join(brain, "big.md"), "x".repeat(MAX_FILE_OP_BYTES + 1));
    expect(await op({ op: "read", path: "big.md" })).toMatchObject({ error: { code: "too_large" } });
  });

  it("writes any file of an order's tree in work/ as base64, and lists its hidden files and links", async () => {
    const bytes = Buffer.from([0, 255, 10, 13, 128]);
    const content = bytes.toString("base64");
    expect(await op({ op: "write", path: "work/bin/blob.dat", content, encoding: "base64" })).toEqual({});
    expect(await readFile(join(brain, "work/bin/blob.dat"))).toEqual(bytes);
    expect(await op({ op: "read", path: "work/bin/blob.dat", encoding: "base64" })).toEqual({
      content,
      encoding: "base64",
    });
    await writeFile(join(brain, "work/.gitignore"), "x\n");
    await symlink("/etc/passwd", join(brain, "work/passwd"));
    const listed = await op({ op: "list", path: "work" });
    expect(listed.entries?.map((e) => [e.path, e.kind])).toEqual([
      ["work/.gitignore", "file"],
      ["work/bin", "dir"],
      ["work/passwd", "link"],
    ]);
    // Outside work/ the rules are as before: no binary file, no listing of links.
    expect(await op({ op: "write", path: "notes/blob.dat", content, encoding: "base64" })).toMatchObject({
      error: { code: "forbidden" },
    });
    expect(await op({ op: "write", path: "db/work.md", content: "x" })).toMatchObject({
      error: { code: "forbidden" },
    });
  });

  it("deletes a markdown file", async () => {
    await writeFile(join(brain, "old.md"), "x");
    expect(await op({ op: "delete", path: "old.md" })).toEqual({});
    expect(await op({ op: "read", path: "old.md" })).toMatchObject({ error: { code: "not_found" } });
  });
});
