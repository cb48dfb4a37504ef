import { chmod, lstat, mkdir, mkdtemp, readFile, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { scratchCopyOf, takeBackAttachedTree } from "./attached-tree.js";

// The take-back reads only what the cell may have changed: a file whose ctime, and whose folders' ctimes, are
// older than the copy is taken as the worktree has it. What a cell can do without touching a file's own ctime —
// moving the folder it is in — must still be seen.
let worktree: string;
let copy: Awaited<ReturnType<typeof scratchCopyOf>>;
let copiedBefore: bigint;

beforeEach(async () => {
  worktree = await mkdtemp(join(tmpdir(), "ironclaw-attached-tree-"));
  await mkdir(join(worktree, "x"));
  await mkdir(join(worktree, "y"));
  await writeFile(join(worktree, "x", "f.txt"), "xxxx\n");
  await writeFile(join(worktree, "y", "f.txt"), "yyyy\n");
  await writeFile(join(worktree, "top.txt"), "top1\n");
  copy = await scratchCopyOf(worktree);
  copiedBefore = await copy.handedOver();
});
afterEach(async () => {
  await copy.remove();
  await rm(worktree, { recursive: true, force: true });
});

const takeBack = () => takeBackAttachedTree(copy.tree, worktree, { copiedBefore });

describe("taking back an attached copy", () => {
  it("takes back two folders the cell swapped, although their files kept the ctimes of the copy", async () => {
    await rename(join(copy.tree, "x"), join(copy.tree, "swap"));
    await rename(join(copy.tree, "y"), join(copy.tree, "x"));
    await rename(join(copy.tree, "swap"), join(copy.tree, "y"));
    const back = await takeBack();
    expect(back.refusals).toEqual([]);
    expect(back.report.files.sort()).toEqual(["x/f.txt", "y/f.txt"]);
    expect(await readFile(join(worktree, "x", "f.txt"), "utf8")).toBe("yyyy\n");
    expect(await readFile(join(worktree, "y", "f.txt"), "utf8")).toBe("xxxx\n");
  });

  it("takes back a file rewritten to the same size, and nothing else", async () => {
    await writeFile(join(copy.tree, "top.txt"), "top2\n");
    const back = await takeBack();
    expect(back.report.files).toEqual(["top.txt"]);
    expect(await readFile(join(worktree, "top.txt"), "utf8")).toBe("top2\n");
  });

  it("takes a file the cell did not touch as the worktree holds it, without comparing its bytes", async () => {
    // The worktree's file changed beside the copy (same size): the cell's untouched copy does not undo it.
    await writeFile(join(worktree, "x", "f.txt"), "XXXX\n");
    const back = await takeBack();
    expect(back.report.files).toEqual([]);
    expect(await readFile(join(worktree, "x", "f.txt"), "utf8")).toBe("XXXX\n");
    // Without the copy's clock mark every file is compared, and the copy's bytes are taken back.
    const compared = await takeBackAttachedTree(copy.tree, worktree);
    expect(compared.report.files).toEqual(["x/f.txt"]);
  });

  it("counts what the host did to the copy before handing it over as untouched, and what came after as changed", async () => {
    // The attach hands every file to the cell's uid (chown moves ctimes) before the turn: the mark is read after.
    await copy.remove();
    copy = await scratchCopyOf(worktree);
    await chmod(join(copy.tree, "top.txt"), 0o644);
    await chmod(join(copy.tree, "x", "f.txt"), 0o644);
    // ctimes are stamped from a coarse clock: the mark waits for a tick past the host's last change, so the host's
    // own changes never count as the cell's.
    const last = (await lstat(join(copy.tree, "x", "f.txt"), { bigint: true })).ctimeNs;
    copiedBefore = await copy.handedOver();
    expect(copiedBefore).toBeGreaterThan(last);
    await writeFile(join(worktree, "x", "f.txt"), "XXXX\n");
    await writeFile(join(copy.tree, "top.txt"), "TOP1\n");
    const back = await takeBack();
    expect(back.report.files).toEqual(["top.txt"]);
    expect(await readFile(join(worktree, "x", "f.txt"), "utf8")).toBe("XXXX\n");
    expect(await readFile(join(worktree, "top.txt"), "utf8")).toBe("TOP1\n");
  });
});
