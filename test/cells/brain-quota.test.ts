import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { measureBrainBytes } from "../../src/cells/brain-usage.js";
import {
  type CellHandle,
  CellStartError,
  createBwrapBackend,
  defaultRuntime,
} from "../../src/cells/index.js";
import { shellIn } from "./cell-shell.js";
import { SUITE_BACKENDS } from "./suite-backends.js";

// A directory brain (a warden without root, or without loop devices) has no quota the kernel enforces: the
// warden checks its size at start and while the cell runs. Brain images are covered by the shared suite.
const unavailable = SUITE_BACKENDS.bwrap?.().unavailable;
const MIB = 1024 * 1024;
let home = "";
const cells: CellHandle[] = [];

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), "ironclaw-brain-quota-"));
  await chmod(home, 0o755);
});
afterAll(async () => {
  await Promise.all(cells.map((c) => c.stop({ timeoutMs: 5_000 })));
  await rm(home, { recursive: true, force: true });
}, 60_000);

describe("measuring a directory brain", () => {
  it("counts what its files take on disk and never what a link points at", async () => {
    const brain = join(home, "measured");
    await mkdir(join(brain, "notes"), { recursive: true });
    await writeFile(join(brain, "notes", "real.bin"), Buffer.alloc(2 * MIB, 1));
    await writeFile(join(home, "host-big.bin"), Buffer.alloc(8 * MIB, 1));
    await symlink(join(home, "host-big.bin"), join(brain, "notes", "link.bin"));
    await symlink(home, join(brain, "home-link"));
    const usage = await measureBrainBytes(brain);
    expect(usage.complete).toBe(true);
    expect(usage.bytes).toBeGreaterThanOrEqual(2 * MIB);
    expect(usage.bytes).toBeLessThan(3 * MIB);
    // The probe counts: the same walk over the host directory sees the 8 MiB file the link points at.
    expect((await measureBrainBytes(home)).bytes).toBeGreaterThan(10 * MIB);
  });
});

describe.skipIf(unavailable !== undefined)("a directory brain's quota", () => {
  const backend = (quotaMiB: number) =>
    createBwrapBackend({
      runtime: defaultRuntime(),
      brainImages: false,
      limits: { brainMiB: quotaMiB },
      brainCheckMs: 200,
      onWarning: () => {},
    });
  const start = async (user: string, quotaMiB: number) => {
    const cell = await backend(quotaMiB).start({
      userId: user,
      userDir: join(home, "users", user),
      handler: "shell",
      runAs: { uid: 61_301, gid: 61_301 },
    });
    cells.push(cell);
    return cell;
  };

  it("refuses to start a brain over its quota, saying how big it is and what to do", async () => {
    const brain = join(home, "users", "ada", "brain");
    await mkdir(brain, { recursive: true });
    await writeFile(join(brain, "memory.md"), "# Memory\n");
    await writeFile(join(brain, "big.bin"), Buffer.alloc(3 * MIB, 1));
    const refused = start("ada", 2);
    await expect(refused).rejects.toBeInstanceOf(CellStartError);
    await expect(refused).rejects.toThrow(
      /the brain in .*\/users\/ada\/brain takes \d+ MiB, over its quota of 2 MiB: remove files from it or raise the cell's brainMiB limit/,
    );
  }, 60_000);

  it("stops a running cell once its brain passes the quota", async () => {
    const cell = await start("bob", 16);
    // Under the quota the cell keeps running: the check has run several times by now.
    expect(
      (await shellIn(cell, "dd if=/dev/zero of=small bs=1M count=4 2>/dev/null; sleep 1; echo fine")).stdout,
    ).toBe("fine\n");
    void shellIn(cell, "dd if=/dev/zero of=big bs=1M count=24 2>/dev/null; sleep 30").catch(() => undefined);
    const exit = await cell.exited;
    expect(exit.reason).toBe("the brain passed its quota of 16 MiB");
  }, 60_000);
});
