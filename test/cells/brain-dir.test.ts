import { chown, lstat, mkdir, mkdtemp, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensureBrainDir, handBrainTo } from "../../src/cells/brain-dir.js";
import { CellStartError } from "../../src/cells/index.js";

const asRoot = process.getuid?.() === 0;
const CELL = { uid: 61_050, gid: 61_050 };
let home = "";

beforeEach(async () => {
  home = await mkdtemp(join(tmpdir(), "ironclaw-brain-dir-"));
});
afterEach(async () => {
  await rm(home, { recursive: true, force: true });
});

describe("ensureBrainDir", () => {
  it("refuses a brain that is a symbolic link, naming it and what to do", async () => {
    const elsewhere = join(home, "elsewhere");
    await mkdir(elsewhere);
    await mkdir(join(home, "user"));
    await symlink(elsewhere, join(home, "user", "brain"));
    const started = ensureBrainDir(join(home, "user"));
    await expect(started).rejects.toBeInstanceOf(CellStartError);
    await expect(started).rejects.toThrow(/brain is a symbolic link: .*move it away/);
  });

  it("seeds a new brain and leaves an existing one as it is", async () => {
    const first = await ensureBrainDir(join(home, "user"));
    expect(first.created).toBe(true);
    await writeFile(join(first.dir, "mine.md"), "# mine\n");
    const again = await ensureBrainDir(join(home, "user"));
    expect(again.created).toBe(false);
  });
});

describe.runIf(asRoot)("handBrainTo (as root)", () => {
  /** A root-owned brain with links out of it, and the host directory they point at. */
  async function plantedBrain() {
    const outside = join(home, "outside");
    await mkdir(join(outside, "deeper"), { recursive: true });
    await writeFile(join(outside, "host.txt"), "host\n");
    const brain = join(home, "brain");
    await mkdir(join(brain, "notes"), { recursive: true });
    await writeFile(join(brain, "notes", "a.md"), "# a\n");
    await symlink(outside, join(brain, "dir-link"));
    await symlink(join(outside, "host.txt"), join(brain, "notes", "file-link"));
    await symlink("../../outside/deeper", join(brain, "notes", "relative-link"));
    return { brain, outside };
  }

  it("gives every entry of the brain to the cell uid and makes the brain 0700", async () => {
    const { brain } = await plantedBrain();
    await handBrainTo(brain, CELL);
    for (const entry of ["", "notes", "notes/a.md", "dir-link", "notes/file-link"]) {
      expect((await lstat(join(brain, entry))).uid, entry).toBe(CELL.uid);
    }
    expect((await stat(brain)).mode & 0o7777).toBe(0o700);
  });

  it("never changes the owner of what a link in the brain points at", async () => {
    const { brain, outside } = await plantedBrain();
    await handBrainTo(brain, CELL);
    for (const target of ["", "host.txt", "deeper"]) {
      expect((await stat(join(outside, target))).uid, target).toBe(0);
    }
    // The probe sees a followed link: chown through the same link does change the host directory.
    await chown(join(brain, "dir-link"), CELL.uid, CELL.gid);
    expect((await stat(outside)).uid).toBe(CELL.uid);
  });

  it("leaves a brain alone when the cell uid already owns it", async () => {
    const { brain } = await plantedBrain();
    await chown(brain, CELL.uid, CELL.gid);
    await handBrainTo(brain, CELL);
    expect((await lstat(join(brain, "notes", "a.md"))).uid).toBe(0);
  });
});
