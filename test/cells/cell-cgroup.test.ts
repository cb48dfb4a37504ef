import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CellHandle,
  createBwrapBackend,
  createCellCgroup,
  defaultRuntime,
  sweepStaleCellCgroups,
} from "../../src/cells/index.js";
import { shellIn } from "./cell-shell.js";
import { SUITE_BACKENDS } from "./suite-backends.js";

// Per-cell cgroups need a root warden; cgroup v1 as on our machines, or v2 where /sys/fs/cgroup is unified.
const asRoot = process.getuid?.() === 0;
const unavailable = SUITE_BACKENDS.bwrap?.().unavailable;
const v1 = !existsSync("/sys/fs/cgroup/cgroup.controllers");
// The idle cell's tasks grow with the cores (tsx's esbuild runs a Go thread per core), so the limit does too;
// asking for more processes than the limit guarantees the limit is what stops the probe.
const TASKS = 60 + 2 * availableParallelism();
const SPAWNS = TASKS + 50;

/** The cell's group per hierarchy, from the kernel's view of its process ("8:pids:/ironclaw/ada-1f2e…"). */
async function cellGroups(cell: CellHandle): Promise<Record<string, string>> {
  const { pid } = await cell.stats();
  const groups: Record<string, string> = {};
  for (const line of readFileSync(`/proc/${pid}/cgroup`, "utf8").trim().split("\n")) {
    const [, controllers = "", path = ""] = line.split(":");
    groups[controllers || "unified"] = path;
  }
  return groups;
}

/** Starts SPAWNS sleeping processes at once from node inside the cell, reports how many started, ends them. */
const SPAWN_PROBE =
  `node -e 'const {spawn}=require("child_process");const kids=[];` +
  `for(let i=0;i<${SPAWNS};i++){try{const c=spawn("sleep",["600"]);c.on("error",()=>{});kids.push(c)}catch{}}` +
  `setTimeout(()=>{const n=kids.filter((c)=>c.pid!==undefined).length;` +
  `for(const c of kids)try{c.kill("SIGKILL")}catch{};console.log("started="+n)},0)'`;

describe.skipIf(!asRoot || unavailable !== undefined)("per-cell cgroups of bwrap cells", () => {
  let home = "";
  const cells: CellHandle[] = [];
  const start = async (user: string, cellTasks: number) => {
    // The rlimit on processes is far above the cgroup's task limit, so only the cgroup can be what stops it.
    const backend = createBwrapBackend({
      runtime: defaultRuntime(),
      limits: { maxProcesses: 4096, cellTasks, cellMemoryMiB: 768 },
    });
    const cell = await backend.start({ userId: user, userDir: join(home, "users", user), handler: "shell" });
    cells.push(cell);
    return cell;
  };

  beforeAll(async () => {
    home = await mkdtemp(join(tmpdir(), "ironclaw-cgroup-"));
  });
  afterAll(async () => {
    await Promise.all(cells.map((c) => c.stop({ timeoutMs: 5_000 })));
    await rm(home, { recursive: true, force: true });
  }, 60_000);

  it("puts the cell in groups of its own with its limits, and removes them when it stops", async () => {
    const cell = await start("ada", TASKS);
    const groups = await cellGroups(cell);
    const pids = v1 ? `/sys/fs/cgroup/pids${groups.pids}` : `/sys/fs/cgroup${groups.unified}`;
    const memory = v1 ? `/sys/fs/cgroup/memory${groups.memory}` : pids;
    expect(pids).toMatch(/\/ironclaw\/ada-[0-9a-f]{8}$/);
    expect(memory).toMatch(/\/ironclaw\/ada-[0-9a-f]{8}$/);
    expect(readFileSync(join(pids, "pids.max"), "utf8").trim()).toBe(String(TASKS));
    const limitFile = v1 ? "memory.limit_in_bytes" : "memory.max";
    expect(readFileSync(join(memory, limitFile), "utf8").trim()).toBe(String(768 * 1024 * 1024));
    await cell.stop();
    expect(existsSync(pids)).toBe(false);
    expect(existsSync(memory)).toBe(false);
  }, 120_000);

  it("stops a cell from starting more processes than its cgroup allows", async () => {
    const bounded = await start("bob", TASKS);
    const { pids } = await cellGroups(bounded);
    const out = await shellIn(bounded, SPAWN_PROBE);
    const started = Number(/started=(\d+)/.exec(out.stdout)?.[1] ?? "NaN");
    expect(started).toBeGreaterThan(0);
    expect(started).toBeLessThan(SPAWNS);
    if (v1) {
      // The kernel counted the refused forks against this group's pids.max.
      const events = readFileSync(`/sys/fs/cgroup/pids${pids}/pids.events`, "utf8");
      expect(Number(/max (\d+)/.exec(events)?.[1])).toBeGreaterThan(0);
    }
    // The probe counts right: with room in the cgroup, the same command starts every process.
    const roomy = await start("carol", 4 * SPAWNS);
    expect((await shellIn(roomy, SPAWN_PROBE)).stdout).toContain(`started=${SPAWNS}`);
    // And the bounded cell still answers once its processes are gone.
    expect((await shellIn(bounded, "echo alive")).stdout).toBe("alive\n");
  }, 120_000);

  it("sweeps the empty groups a killed warden left behind, never a group with a task or a young one", async () => {
    // A prefix of this test's own: other wardens of the suite make and fill groups meanwhile.
    const prefix = `sweep${randomBytes(3).toString("hex")}`;
    const limits = { memoryMiB: 64, maxTasks: 8 };
    const left = await createCellCgroup(`${prefix}-left`, limits);
    const busy = await createCellCgroup(`${prefix}-busy`, limits);
    if ("unavailable" in left || "unavailable" in busy) throw new Error("cgroups unavailable as root");
    const sleeper = spawn("sleep", ["60"]);
    try {
      for (const procs of busy.procsFiles) writeFileSync(procs, String(sleeper.pid));
      // Both are younger than a minute: a warden may have made them a moment ago.
      expect(await sweepStaleCellCgroups({ prefix })).toBe(0);
      expect(await sweepStaleCellCgroups({ prefix, minAgeMs: 0 })).toBe(left.dirs.length);
      for (const dir of left.dirs) expect(existsSync(dir)).toBe(false);
      for (const dir of busy.dirs) expect(existsSync(dir)).toBe(true);
    } finally {
      sleeper.kill("SIGKILL");
      await busy.remove();
      await left.remove();
    }
    for (const dir of busy.dirs) expect(existsSync(dir)).toBe(false);
  });
});
