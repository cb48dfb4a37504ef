import { execFileSync } from "node:child_process";
import { mkdir, symlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { makeTempBrain, type TempBrain } from "../../test/support/memory-fixtures.js";
import { BrainFileRefusal, MAX_SYMLINK_HOPS, readBrainFile } from "./brain-file-access.js";
import { listBrainFiles } from "./brain-files.js";

let temp: TempBrain;
let root: string;
beforeEach(async () => {
  temp = await makeTempBrain({ "notes/garden.md": "# Garden\n\nBasil.\n" });
  root = temp.brain.root;
  await mkdir(join(temp.dir, "host"));
  await writeFile(join(temp.dir, "host", "secret.md"), "# Host\n\nlaunch codes\n");
});
afterEach(async () => {
  await temp.cleanup();
});

const read = (path: string, maxBytes = 1024) => readBrainFile(root, path, maxBytes)?.bytes.toString("utf8");

function refusal(path: string, maxBytes = 1024): string {
  let error: unknown;
  try {
    readBrainFile(root, path, maxBytes);
  } catch (e) {
    error = e;
  }
  if (!(error instanceof BrainFileRefusal)) throw new Error(`${path} was not refused: ${String(error)}`);
  return error.rule;
}

describe("reading a brain file from the host", () => {
  it("reads a regular file and describes it by the open descriptor", async () => {
    const result = readBrainFile(root, "notes/garden.md", 1024);
    expect(result?.bytes.toString("utf8")).toBe("# Garden\n\nBasil.\n");
    expect(result?.info.size).toBe(17);
    expect(result?.info.isFile()).toBe(true);
  });

  it("follows links that stay inside the brain: relative, absolute, upward and through a linked folder", async () => {
    await symlink("garden.md", join(root, "notes", "relative.md"));
    await symlink(join(root, "notes", "garden.md"), join(root, "absolute.md"));
    await mkdir(join(root, "logs"));
    await symlink("../notes/garden.md", join(root, "logs", "upward.md"));
    await symlink("notes", join(root, "linked-notes"));
    for (const path of ["notes/relative.md", "absolute.md", "logs/upward.md", "linked-notes/garden.md"])
      expect([path, read(path)]).toEqual([path, "# Garden\n\nBasil.\n"]);
  });

  it("refuses every way out of the brain and never returns the host file's text", async () => {
    const secret = join(temp.dir, "host", "secret.md");
    await symlink(secret, join(root, "absolute.md"));
    await symlink("../host/secret.md", join(root, "relative.md"));
    await symlink(join(temp.dir, "host"), join(root, "linked-dir"));
    await symlink("../host", join(root, "relative-dir"));
    for (const path of ["absolute.md", "linked-dir/secret.md"])
      expect(refusal(path)).toBe("leads outside the brain through a symlink");
    for (const path of ["relative.md", "relative-dir/secret.md"])
      expect(refusal(path)).toBe("leads outside the brain");
  });

  it("answers undefined for a missing file, a dangling link and a file used as a folder", async () => {
    await symlink("nowhere.md", join(root, "dangling.md"));
    for (const path of ["missing.md", "dangling.md", "notes/garden.md/inner.md"])
      expect(readBrainFile(root, path, 1024)).toBeUndefined();
  });

  it("refuses a folder, a FIFO (without waiting for a writer) and a link loop", async () => {
    execFileSync("mkfifo", [join(root, "pipe.md")]);
    await symlink("loop-b.md", join(root, "loop-a.md"));
    await symlink("loop-a.md", join(root, "loop-b.md"));
    expect(refusal("notes")).toBe("is not a regular file");
    expect(refusal("pipe.md")).toBe("is not a regular file");
    expect(refusal("loop-a.md")).toBe(`passes through more than ${MAX_SYMLINK_HOPS} symlinks`);
  });

  it("reads a file of exactly the limit and refuses one byte more", async () => {
    await writeFile(join(root, "big.md"), "x".repeat(100));
    expect(read("big.md", 100)).toHaveLength(100);
    expect(refusal("big.md", 99)).toBe("is larger than 99 bytes");
  });
});

describe("listing a brain", () => {
  it("lists plain and inside-linked files, and names each skipped link with its reason", async () => {
    await symlink("notes/garden.md", join(root, "inside.md"));
    await symlink(join(temp.dir, "host", "secret.md"), join(root, "leak.md"));
    await symlink(join(temp.dir, "host"), join(root, "linked-dir"));
    await symlink("nowhere.md", join(root, "dangling.md"));
    const { files, skipped } = await listBrainFiles(temp.brain);
    expect(files.map((f) => [f.path, f.size])).toEqual([
      ["inside.md", 17],
      ["notes/garden.md", 17],
    ]);
    expect(skipped).toEqual([
      { path: "dangling.md", reason: "dangling symlink" },
      { path: "leak.md", reason: "leads outside the brain through a symlink" },
    ]);
  });
});
