import { lstat, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type CellHandle, createBwrapBackend, defaultRuntime } from "../../cells/index.js";
import { copyTreeIn, copyTreeOut } from "./tree-transfer.js";

let home = "";
let cell: CellHandle;
// A directory brain (not an image), so that the test can play the agent that wrote into it.
const brainOf = () => join(home, "user", "brain");

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "ironclaw-tree-"));
  cell = await createBwrapBackend({ runtime: defaultRuntime(), brainImages: false }).start({
    userId: "tree-user",
    userDir: join(home, "user"),
    handler: "echo",
    startTimeoutMs: 60_000,
  });
}, 90_000);
afterAll(async () => {
  await cell?.stop();
  await rm(home, { recursive: true, force: true });
});

const binary = Buffer.from(Array.from({ length: 256 }, (_, i) => i));

describe("a tree copied into a cell and back out", () => {
  it("carries regular files of any kind both ways and never a link or a .git", async () => {
    const tree = join(home, "worktree");
    await mkdir(join(tree, "sub", ".git"), { recursive: true });
    await writeFile(join(tree, ".git"), "gitdir: /somewhere/else\n");
    await writeFile(join(tree, "a.txt"), "alpha\n");
    await writeFile(join(tree, ".gitignore"), "node_modules\n");
    await writeFile(join(tree, "sub", "b.bin"), binary);
    await writeFile(join(tree, "sub", ".git", "config"), "[core]\n\tfsmonitor = /tmp/evil\n");
    await symlink("/etc/passwd", join(tree, "passwd"));

    const sent = await copyTreeIn(cell, tree);
    expect(sent.files).toEqual([".gitignore", "a.txt", "sub/b.bin"]);
    expect(sent.skipped.map((s) => s.path).sort()).toEqual(["passwd", "sub/.git"]);
    expect(await readFile(join(brainOf(), "work", "sub", "b.bin"))).toEqual(binary);
    await expect(lstat(join(brainOf(), "work", ".git"))).rejects.toThrow(/ENOENT/);

    // What the cell's agent did to its copy: a new file, a deletion, a link out and a planted hook.
    const work = join(brainOf(), "work");
    await writeFile(join(work, "new.md"), "# written in the cell\n");
    await rm(join(work, "a.txt"));
    await symlink("/etc/shadow", join(work, "shadow"));
    await mkdir(join(work, ".git", "hooks"), { recursive: true });
    await writeFile(join(work, ".git", "hooks", "post-commit"), "#!/bin/sh\ntouch /tmp/pwned\n");

    const back = await copyTreeOut(cell, "work", tree, { removeMissing: sent.files });
    expect(back.files.sort()).toEqual([".gitignore", "new.md", "sub/b.bin"]);
    expect(back.removed).toEqual(["a.txt"]);
    expect(back.skipped).toEqual(
      expect.arrayContaining([
        { path: ".git", reason: "a .git is never copied to the host" },
        { path: "shadow", reason: "a symbolic link is not copied" },
      ]),
    );
    expect(await readFile(join(tree, "new.md"), "utf8")).toBe("# written in the cell\n");
    expect(await readFile(join(tree, "sub", "b.bin"))).toEqual(binary);
    // The worktree's own .git file is as it was, the host's link untouched, no hook reached the host.
    expect(await readFile(join(tree, ".git"), "utf8")).toBe("gitdir: /somewhere/else\n");
    expect((await lstat(join(tree, "passwd"))).isSymbolicLink()).toBe(true);
    await expect(lstat(join(tree, "shadow"))).rejects.toThrow(/ENOENT/);
  }, 60_000);

  it("writes through no link of the host's tree: a file under a linked folder is skipped", async () => {
    const tree = join(home, "linked");
    const outside = join(home, "outside");
    await mkdir(outside, { recursive: true });
    await mkdir(tree, { recursive: true });
    await symlink(outside, join(tree, "out"));
    await mkdir(join(brainOf(), "work2", "out"), { recursive: true });
    await writeFile(join(brainOf(), "work2", "out", "escape.txt"), "x");

    const back = await copyTreeOut(cell, "work2", tree);
    expect(back.files).toEqual([]);
    expect(back.skipped).toEqual([{ path: "out/escape.txt", reason: "out is not a folder in the worktree" }]);
    await expect(lstat(join(outside, "escape.txt"))).rejects.toThrow(/ENOENT/);
  }, 60_000);

  it("keeps the host's file when the cell's version is over a cap, and refuses to guess when the tree cannot be listed", async () => {
    const tree = join(home, "capped");
    await mkdir(tree, { recursive: true });
    await writeFile(join(tree, "a.txt"), "short\n");
    const limits = { maxFiles: 10, maxBytes: 1_000, maxFileBytes: 10 };
    const sent = await copyTreeIn(cell, tree, "work/capped", limits);
    expect(sent.files).toEqual(["a.txt"]);
    await writeFile(join(brainOf(), "work", "capped", "a.txt"), "far longer than ten bytes\n");

    const back = await copyTreeOut(cell, "work/capped", tree, { limits, removeMissing: sent.files });
    expect(back).toMatchObject({ files: [], removed: [], skipped: [{ path: "a.txt" }] });
    expect(await readFile(join(tree, "a.txt"), "utf8")).toBe("short\n");
    await expect(copyTreeOut(cell, "missing", tree, { removeMissing: sent.files })).rejects.toThrow(
      /could not be listed/,
    );
    expect(await readFile(join(tree, "a.txt"), "utf8")).toBe("short\n");
  }, 60_000);

  it("takes back only what the allowlist lets the cell change, and removes nothing outside it", async () => {
    const tree = join(home, "allowed");
    await mkdir(join(tree, "docs"), { recursive: true });
    await writeFile(join(tree, "README.md"), "readme\n");
    await writeFile(join(tree, "docs", "a.md"), "a\n");
    const sent = await copyTreeIn(cell, tree, "work/allowed");
    const work = join(brainOf(), "work", "allowed");
    await writeFile(join(work, "docs", "a.md"), "a, edited\n");
    await writeFile(join(work, "README.md"), "rewritten\n");
    await writeFile(join(work, "new.sh"), "echo\n");
    await rm(join(work, "docs", "a.md"));
    await writeFile(join(work, "docs", "b.md"), "b\n");

    const back = await copyTreeOut(cell, "work/allowed", tree, {
      removeMissing: sent.files,
      allow: (path) => path.startsWith("docs/"),
    });
    expect(back.files).toEqual(["docs/b.md"]);
    expect(back.removed).toEqual(["docs/a.md"]);
    expect(back.skipped.map((s) => s.path).sort()).toEqual(["README.md", "new.sh"]);
    expect(await readFile(join(tree, "README.md"), "utf8")).toBe("readme\n");
    await expect(lstat(join(tree, "new.sh"))).rejects.toThrow(/ENOENT/);
  }, 60_000);
});
