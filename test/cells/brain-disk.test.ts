import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensureBrainDisk, settleSpareCopies } from "../../src/cells/brain-disk.js";
import { CellStartError } from "../../src/cells/index.js";

const hasMkfs = spawnSync("mkfs.ext4", ["-V"]).status === 0;
let home = "";

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "ironclaw-brain-disk-"));
  await mkdir(join(home, "user"));
});
afterEach(async () => {
  // A new brain leaves a spare copy being made in the background; it must end before its folder goes.
  await settleSpareCopies();
  await rm(home, { recursive: true, force: true });
});

describe.skipIf(!hasMkfs)("ensureBrainDisk", () => {
  it("makes a new brain disk that only its owner can read", async () => {
    const disk = await ensureBrainDisk(join(home, "user"), 16);
    expect(disk.created).toBe(true);
    expect((await stat(disk.file)).mode & 0o777).toBe(0o600);
  }, 60_000);

  it("makes each new user's disk as a sparse copy of one template per size and seed", async () => {
    const seed = { provider: "openrouter", model: "some/model" };
    for (const user of ["ada", "bob", "cy"]) await mkdir(join(home, user));
    const first = await ensureBrainDisk(join(home, "ada"), 64, seed);
    const second = await ensureBrainDisk(join(home, "bob"), 64, seed);
    const other = await ensureBrainDisk(join(home, "cy"), 64, { provider: "ollama", model: "llama" });
    expect([first.created, second.created, other.created]).toEqual([true, true, true]);
    const templates = (await readdir(join(home, ".templates"))).filter((f) => f.endsWith(".ext4"));
    expect(templates).toHaveLength(2);
    // The copy is the template's content (the seed's irowclaw.toml included), in a file of its own.
    const [a, b] = [await readFile(first.file), await readFile(second.file)];
    expect(a.equals(b)).toBe(true);
    expect(a.includes("some/model")).toBe(true);
    expect((await readFile(other.file)).includes("some/model")).toBe(false);
    // Sparse: a 64 MiB image takes far less on disk (its journal and free blocks are holes).
    const info = await stat(second.file);
    expect(info.size).toBe(64 * 1024 * 1024);
    expect(info.blocks * 512).toBeLessThan(8 * 1024 * 1024);
  }, 60_000);

  it("gives the next new user the spare copy made after the last one, and makes another", async () => {
    for (const user of ["ada", "bob"]) await mkdir(join(home, user));
    const first = await ensureBrainDisk(join(home, "ada"), 64);
    const spare = await waitForSpare(join(home, ".templates"));
    const spareInode = (await stat(spare)).ino;
    const second = await ensureBrainDisk(join(home, "bob"), 64);
    // The spare itself became bob's brain (same inode), with the template's content and bob's file mode.
    const info = await stat(second.file);
    expect(info.ino).toBe(spareInode);
    expect(info.mode & 0o777).toBe(0o600);
    expect((await readFile(second.file)).equals(await readFile(first.file))).toBe(true);
    const next = await waitForSpare(join(home, ".templates"));
    expect((await stat(next)).ino).not.toBe(spareInode);
  }, 60_000);

  it("refuses a brain disk that is a symbolic link and leaves its target alone", async () => {
    const target = join(home, "host-file");
    await writeFile(target, "host data\n");
    await symlink(target, join(home, "user", "brain.ext4"));
    const made = ensureBrainDisk(join(home, "user"), 16);
    await expect(made).rejects.toBeInstanceOf(CellStartError);
    await expect(made).rejects.toThrow(/brain\.ext4 is a symbolic link: .*move it away/);
    expect(await readFile(target, "utf8")).toBe("host data\n");
  });
});

/** The spare brain image beside the template, once its copy has been renamed into place. */
async function waitForSpare(dir: string): Promise<string> {
  for (let i = 0; i < 200; i++) {
    const spare = (await readdir(dir)).find((f) => f.endsWith(".spare"));
    if (spare) return join(dir, spare);
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no spare brain image in ${dir}`);
}
