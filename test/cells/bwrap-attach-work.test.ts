import { lstat, mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CellBackend,
  type CellHandle,
  createBwrapBackend,
  defaultRuntime,
} from "../../src/cells/index.js";
import { boundedScratch, hostGit } from "../../src/command/index.js";
import { shellIn } from "./cell-shell.js";
import { SUITE_BACKENDS } from "./suite-backends.js";

// An order's worktree attached to a running cell instead of copied through the protocol: the cell works on the
// very files, and never on the worktree's .git, which names the repository whose hooks and config the host runs.
const asRoot = process.getuid?.() === 0;
const unavailable = SUITE_BACKENDS.bwrap?.().unavailable;
const OWNER = { uid: 61_011, gid: 61_011 };

describe.skipIf(!asRoot || unavailable !== undefined)("a worktree attached to a bwrap cell", () => {
  let home = "";
  let backend: CellBackend;
  let worktree = "";
  let gitFile = "";
  const started: CellHandle[] = [];
  const start = async (user: string, workSlot: boolean) => {
    const cell = await backend.start({
      userId: user,
      userDir: join(home, "users", user),
      handler: "shell",
      startTimeoutMs: 60_000,
      runAs: OWNER,
      workSlot,
    });
    started.push(cell);
    return cell;
  };

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "ironclaw-attach-work-"));
    backend = createBwrapBackend({ runtime: defaultRuntime(), brainImages: false });
    const repo = join(home, "repo");
    await mkdir(join(repo, "src"), { recursive: true });
    await hostGit(repo, ["init", "-q", "-b", "main"]);
    await writeFile(join(repo, "src", "a.ts"), "export const a = 1;\n");
    await hostGit(repo, ["add", "-A"]);
    await hostGit(repo, ["commit", "-q", "-m", "seed"]);
    worktree = join(home, "worktrees", "order-1");
    await hostGit(repo, ["worktree", "add", "-q", "-b", "order-1", worktree]);
    gitFile = await readFile(join(worktree, ".git"), "utf8");
  }, 60_000);

  afterAll(async () => {
    await Promise.all(started.map((cell) => cell.stop()));
    await rm(home, { recursive: true, force: true });
  });

  it("shows the worktree's files at work/ and takes the cell's writes straight into it", async () => {
    const cell = await start("attach-user", true);
    expect(cell.attachWork).toBeDefined();
    await cell.attachWork?.(worktree);
    const out = await shellIn(
      cell,
      "cd /mnt/brain/work && cat src/a.ts && echo 'export const b = 2;' > src/b.ts && echo written",
    );
    expect(out.stdout).toBe("export const a = 1;\nwritten\n");
    expect(await readFile(join(worktree, "src", "b.ts"), "utf8")).toBe("export const b = 2;\n");
    // The cell's uid owns what it wrote, as host uid, not root.
    expect((await lstat(join(worktree, "src", "b.ts"))).uid).toBe(OWNER.uid);
  }, 90_000);

  it("masks the worktree's .git: the cell reads nothing of it and cannot replace or point it elsewhere", async () => {
    const cell = started[0] as CellHandle;
    // The probe reads a real file beside .git first, so an empty answer for .git means masked, not unreadable.
    const probe = await shellIn(
      cell,
      [
        "cd /mnt/brain/work",
        "head -c 5 src/a.ts; echo",
        "echo git=[$(cat .git)]",
        "echo 'gitdir: ./evil' > .git; echo after-write=[$(cat .git)]",
        "rm -f .git && echo removed",
        "mv .git moved && echo moved",
        "mkdir -p evil/hooks && echo made-evil",
      ].join("; "),
    );
    expect(probe.stdout).toContain("expor\ngit=[]\nafter-write=[]\n");
    expect(probe.stdout).not.toContain("removed");
    expect(probe.stdout).not.toContain("moved\n");
    // The host's .git file is as git wrote it.
    expect(await readFile(join(worktree, ".git"), "utf8")).toBe(gitFile);
    expect((await lstat(join(worktree, ".git"))).isFile()).toBe(true);
  }, 90_000);

  it("gives no attach to a cell started without a work slot, nor twice to one with it", async () => {
    const plain = await start("plain-user", false);
    expect(plain.attachWork).toBeUndefined();
    const cell = started[0] as CellHandle;
    await expect(cell.attachWork?.(worktree)).rejects.toThrow(/attached already/);
  }, 90_000);

  it("attaches a capped scratch folder mounted after the cell started, and the cell cannot write past its cap", async () => {
    // A warm cell: started before the scratch tmpfs exists, as a pooled command cell is.
    const cell = await start("capped-user", true);
    const scratch = await boundedScratch("ironclaw-attach-cap-", { bytes: 1024 * 1024, inodes: 200 });
    try {
      expect(scratch.bounded).toBe(true);
      const tree = join(scratch.dir, "work");
      await mkdir(tree);
      await writeFile(join(tree, "seen.txt"), "from the host\n");
      await cell.attachWork?.(tree);
      const out = await shellIn(
        cell,
        [
          "cd /mnt/brain/work && cat seen.txt",
          "head -c 4194304 /dev/zero > big 2>/dev/null && echo wrote-all || echo refused",
          "echo kept=$(wc -c < big)",
        ].join("; "),
      );
      expect(out.stdout).toContain("from the host\nrefused\n");
      const kept = Number(/kept=(\d+)/.exec(out.stdout)?.[1]);
      expect(kept).toBeLessThanOrEqual(1024 * 1024);
      // What the cell wrote is on the scratch tmpfs, which the host reads after.
      expect((await lstat(join(tree, "big"))).size).toBe(kept);
    } finally {
      await cell.stop();
      await scratch.remove();
    }
  }, 90_000);

  it("refuses to attach a folder whose .git is a folder (a repository, not a worktree)", async () => {
    const cell = await start("refuse-user", true);
    const plainDir = join(home, "plain");
    await mkdir(join(plainDir, ".git"), { recursive: true });
    await expect(cell.attachWork?.(plainDir)).rejects.toThrow(/\.git that is not a file/);
  }, 90_000);
});
