import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { boundedScratch, footprintOf } from "./bounded-scratch.js";

const root = process.getuid?.() === 0;
const mounted = (dir: string) => readFileSync("/proc/mounts", "utf8").includes(` ${dir} tmpfs `);

describe.skipIf(!root)("a scratch folder a cell writes into, on a root host", () => {
  it("is a tmpfs of its own: a write past its cap fails with ENOSPC, and remove() unmounts and deletes it", async () => {
    const scratch = await boundedScratch("ironclaw-scratch-test-", { bytes: 256 * 1024, inodes: 100 });
    try {
      expect(scratch.bounded).toBe(true);
      expect(mounted(scratch.dir)).toBe(true);
      await writeFile(join(scratch.dir, "fits"), Buffer.alloc(128 * 1024));
      await expect(writeFile(join(scratch.dir, "too-much"), Buffer.alloc(512 * 1024))).rejects.toMatchObject({
        code: "ENOSPC",
      });
    } finally {
      await scratch.remove();
    }
    expect(mounted(scratch.dir)).toBe(false);
    expect(existsSync(scratch.dir)).toBe(false);
  });

  it("runs out of inodes before a flood of empty files can", async () => {
    const scratch = await boundedScratch("ironclaw-scratch-test-", { bytes: 1024 * 1024, inodes: 64 });
    try {
      let refused: unknown;
      for (let i = 0; i < 200 && refused === undefined; i++)
        await writeFile(join(scratch.dir, `f${i}`), "").catch((error: unknown) => {
          refused = error;
        });
      expect(refused).toMatchObject({ code: "ENOSPC" });
    } finally {
      await scratch.remove();
    }
  });
});

if (!root) console.log("bounded-scratch: not root, so no tmpfs can be mounted; the mount tests are skipped");

describe("a tree's footprint", () => {
  it("counts pages per file and an inode per entry, leaving out what it is told to skip", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ironclaw-footprint-"));
    try {
      await mkdir(join(dir, "notes"));
      await writeFile(join(dir, "notes", "a.md"), "a");
      await writeFile(join(dir, "big"), Buffer.alloc(4097));
      await symlink("notes/a.md", join(dir, "link"));
      await writeFile(join(dir, ".git"), "gitdir: elsewhere\n");
      const footprint = await footprintOf(dir, (name) => name === ".git");
      // root + notes/ + a.md + big + link
      expect(footprint.inodes).toBe(5);
      // root, notes/ and the link a page each, a.md one page, big two
      expect(footprint.bytes).toBe(4096 * 6);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
