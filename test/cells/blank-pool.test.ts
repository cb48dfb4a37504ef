import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { chmod, mkdtemp, readFile, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { nextPoolOwner } from "../../src/cells/backends/pool-uids.js";
import { type CellHandle, createBwrapBackend, defaultRuntime, WarmPool } from "../../src/cells/index.js";
import { shellIn } from "./cell-shell.js";
import { SUITE_BACKENDS } from "./suite-backends.js";

// Blank cells: started before their user is known, handed out by attaching the user's brain (root warden).
const asRoot = process.getuid?.() === 0;
const unavailable = SUITE_BACKENDS.bwrap?.().unavailable;
const images = asRoot && existsSync("/dev/loop-control");
const POOL = { first: 62_000, count: 500 };

async function hostUid(cell: CellHandle): Promise<number> {
  const { pid } = await cell.stats();
  return Number(/^Uid:\s*(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
}

function runAsUid(uid: number, command: string[]) {
  const run = spawnSync("setpriv", [`--reuid=${uid}`, `--regid=${uid}`, "--clear-groups", ...command]);
  return { ok: run.status === 0, out: `${run.stdout}${run.stderr}` };
}

describe("pool uids", () => {
  it("gives each blank cell the next uid of the range, kept on disk, and starts over only past its end", async () => {
    const dir = await mkdtemp(join(tmpdir(), "ironclaw-pool-uids-"));
    try {
      const range = { first: 70_000, count: 3 };
      const got = [];
      for (let i = 0; i < 4; i++) got.push((await nextPoolOwner(dir, range)).uid);
      expect(got).toEqual([70_000, 70_001, 70_002, 70_000]);
      expect(await readFile(join(dir, ".pool-uid"), "utf8")).toBe("70001");
      await expect(nextPoolOwner(dir, { first: 0, count: 3 })).rejects.toThrow(
        /pool uids 0\+3 are not allowed/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!asRoot || unavailable !== undefined)("blank bwrap cells", () => {
  let home = "";
  const cells: CellHandle[] = [];
  const pools: WarmPool[] = [];
  const poolOf = (brainImages: boolean, blank: number) => {
    const backend = createBwrapBackend({
      runtime: defaultRuntime(),
      brainImages,
      poolUids: POOL,
      onWarning: () => {},
    });
    const pool = new WarmPool({
      backend,
      usersDir: join(home, "users"),
      size: 0,
      blank,
      spec: { handler: "shell" },
    });
    pools.push(pool);
    return pool;
  };
  const take = async (pool: WarmPool, user: string) => {
    const cell = await pool.takeBlank({ userId: user, userDir: join(home, "users", user), handler: "shell" });
    if (!cell) throw new Error(`no blank cell for ${user}`);
    cells.push(cell);
    return cell;
  };

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "ironclaw-blank-"));
  });
  afterAll(async () => {
    await Promise.all(cells.map((c) => c.stop({ timeoutMs: 5_000 })));
    await Promise.all(pools.map((p) => p.drain()));
    await rm(home, { recursive: true, force: true });
  }, 60_000);

  it("hands each user a cell with their brain, a uid no other cell has and a cgroup named for them", async () => {
    const pool = poolOf(images, 2);
    await pool.prewarmBlank();
    expect(pool.blankCount).toBe(2);
    const ada = await take(pool, "ada");
    await ada.call({ type: "FileOpRequest", op: "write", path: "ada.md", content: "ada's note\n" });
    const bob = await take(pool, "bob");
    const [adaUid, bobUid] = [await hostUid(ada), await hostUid(bob)];
    expect(adaUid).not.toBe(bobUid);
    for (const uid of [adaUid, bobUid]) expect(uid).toBeGreaterThanOrEqual(POOL.first);
    // Each sees its own brain at /mnt/brain, as its own files; bob's holds nothing of ada's.
    const seen = await shellIn(bob, "stat -c %u /mnt/brain; ls /mnt/brain");
    expect(seen.stdout.split("\n")[0]).toBe("1000");
    expect(seen.stdout).toContain("config");
    expect(seen.stdout).not.toContain("ada.md");
    expect((await shellIn(ada, "cat /mnt/brain/ada.md")).stdout).toBe("ada's note\n");
    const { pid } = await ada.stats();
    const groups = readFileSync(`/proc/${pid}/cgroup`, "utf8");
    expect(groups).toMatch(new RegExp(`pids:/ironclaw/ada-${adaUid}`));
    // The user's directory stays root's alone on the host, whatever the cell's uid.
    const userDir = await stat(join(home, "users", "ada"));
    expect([userDir.uid, userDir.mode & 0o777]).toEqual([0, 0o700]);
  }, 60_000);

  it("keeps one user's directory brain unreadable to another pool cell's uid even with a path to it", async () => {
    const pool = poolOf(false, 2);
    await pool.prewarmBlank();
    const carol = await take(pool, "carol");
    const dave = await take(pool, "dave");
    await carol.call({ type: "FileOpRequest", op: "write", path: "carol.md", content: "carol's note\n" });
    const note = join(home, "users", "carol", "brain", "carol.md");
    for (const dir of [home, join(home, "users"), join(home, "users", "carol")]) await chmod(dir, 0o755);
    try {
      const stranger = runAsUid(await hostUid(dave), ["cat", note]);
      expect(stranger.ok, stranger.out).toBe(false);
      expect(stranger.out).toContain("Permission denied");
      // The probe works: carol's cell's own uid reads the note by the same path.
      expect(runAsUid(await hostUid(carol), ["cat", note]).out).toBe("carol's note\n");
    } finally {
      for (const dir of [home, join(home, "users"), join(home, "users", "carol")]) await chmod(dir, 0o700);
    }
  }, 60_000);

  it.runIf(images)(
    "refuses a hand-out while the user's brain is in use, so the pool gives no cell",
    async () => {
      const pool = poolOf(images, 1);
      await pool.prewarmBlank();
      const erin = await take(pool, "erin");
      const backend = createBwrapBackend({ runtime: defaultRuntime(), poolUids: POOL, onWarning: () => {} });
      const blank = await backend.startBlank?.({ usersDir: join(home, "users"), handler: "shell" });
      if (!blank) throw new Error("bwrap under root has blank cells");
      cells.push(blank.cell);
      // A second cell for erin would mount the same brain image: the hand-out says why it cannot.
      const spec = { userId: "erin", userDir: join(home, "users", "erin"), handler: "shell" as const };
      await expect(blank.assign(spec)).rejects.toThrow(/the brain of erin is in use by another cell/);
      // Through the pool the same refusal is an undefined (the caller starts cold), and the pool refills.
      await pool.prewarmBlank();
      expect(pool.blankCount).toBe(1);
      expect(await pool.takeBlank(spec)).toBeUndefined();
      await pool.prewarmBlank();
      expect(pool.blankCount).toBe(1);
      expect((await shellIn(erin, "echo served")).stdout).toBe("served\n");
    },
    60_000,
  );
});
