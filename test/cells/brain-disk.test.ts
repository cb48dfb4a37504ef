import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensureBrainDisk } from "../../src/cells/brain-disk.js";
import { CellStartError } from "../../src/cells/index.js";

const hasMkfs = spawnSync("mkfs.ext4", ["-V"]).status === 0;
let home = "";

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "ironclaw-brain-disk-"));
  await mkdir(join(home, "user"));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

describe.skipIf(!hasMkfs)("ensureBrainDisk", () => {
  it("makes a new brain disk that only its owner can read", async () => {
    const disk = await ensureBrainDisk(join(home, "user"), 16);
    expect(disk.created).toBe(true);
    expect((await stat(disk.file)).mode & 0o777).toBe(0o600);
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
