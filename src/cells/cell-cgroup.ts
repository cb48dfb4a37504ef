import { existsSync } from "node:fs";
import { mkdir, readdir, readFile, rename, rmdir, stat, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";

/**
 * What bounds a whole cell, all its processes together: rlimits bound one process (memory) or one uid
 * (processes), so a cell could still add up many processes' memory, tmpfs pages included, or starve the host
 * of pids. A cgroup per cell closes that (ARCHITECTURE: "each user's cell runs … in its own cgroup").
 */
export interface CellCgroupLimits {
  /** Memory of every process of the cell plus the pages of its tmpfs mounts. */
  memoryMiB: number;
  /** Tasks (processes and threads: node alone runs about ten) the cell may have at once. */
  maxTasks: number;
}

export interface CellCgroup {
  /** cgroup.procs files the cell's first process writes its own pid to, before it forks anything. */
  readonly procsFiles: string[];
  /** The group directories, one per hierarchy (cgroup v1) or one (v2). */
  readonly dirs: string[];
  /** Kills what is left in the groups and removes them; call once the cell's process has exited. */
  remove(): Promise<void>;
  /** Gives the groups another name, processes and limits kept: a pool cell's, once it has its user. */
  rename(name: string): Promise<void>;
}

const CGROUP_ROOT = "/sys/fs/cgroup";
const MIB = 1024 * 1024;

/**
 * Creates the cell's groups with their limits: cgroup v2 when /sys/fs/cgroup is unified, else v1 (pids under
 * pids/ironclaw/, memory under the warden's own memory group, whose limits then also hold the cells).
 * Returns why not when cgroups cannot be used here (not root, read-only, controllers missing); nothing
 * is left behind then.
 */
export async function createCellCgroup(
  name: string,
  limits: CellCgroupLimits,
  root = CGROUP_ROOT,
): Promise<CellCgroup | { unavailable: string }> {
  if (process.getuid?.() !== 0) return { unavailable: "the warden is not root" };
  const dirs: string[] = [];
  try {
    if (existsSync(join(root, "cgroup.controllers"))) {
      const parent = join(root, "ironclaw");
      // v2 lets a group hand controllers to children only while it has no processes of its own: the warden's
      // group has (itself), so cells go under a group of their own at the top.
      await writeFile(join(root, "cgroup.subtree_control"), "+pids +memory");
      await mkdir(parent, { recursive: true });
      await writeFile(join(parent, "cgroup.subtree_control"), "+pids +memory");
      const dir = join(parent, name);
      await mkdir(dir);
      dirs.push(dir);
      await writeFile(join(dir, "pids.max"), String(limits.maxTasks));
      await writeFile(join(dir, "memory.max"), String(limits.memoryMiB * MIB));
      if (existsSync(join(dir, "memory.swap.max"))) await writeFile(join(dir, "memory.swap.max"), "0");
    } else {
      const [pidsParent, memoryParent] = await v1Parents(root);
      const pids = join(pidsParent, name);
      await mkdir(pids, { recursive: true });
      dirs.push(pids);
      await writeFile(join(pids, "pids.max"), String(limits.maxTasks));
      const memory = join(memoryParent, name);
      await mkdir(memory, { recursive: true });
      dirs.push(memory);
      await writeFile(join(memory, "memory.limit_in_bytes"), String(limits.memoryMiB * MIB));
      // Without this, swap would let the cell's memory grow past the limit (memsw must be ≥ the limit).
      const memsw = join(memory, "memory.memsw.limit_in_bytes");
      if (existsSync(memsw)) await writeFile(memsw, String(limits.memoryMiB * MIB));
    }
  } catch (error) {
    await removeGroups(dirs);
    return { unavailable: `cgroups cannot be used here (${(error as Error).message})` };
  }
  return {
    get dirs() {
      return dirs;
    },
    get procsFiles() {
      return dirs.map((dir) => join(dir, "cgroup.procs"));
    },
    remove: () => removeGroups(dirs),
    async rename(next: string) {
      for (const [i, dir] of dirs.entries()) {
        const renamed = join(dirname(dir), next);
        await rename(dir, renamed);
        dirs[i] = renamed;
      }
    },
  };
}

/**
 * Removes cell groups that a warden which died (a kill -9, a crash, a power cut) left behind: groups with no
 * task left, older than `minAgeMs`, whose names start with `prefix`. A live cell's group holds its processes,
 * and a group another warden has just made is younger than the age, so neither is touched; a group that is not
 * empty refuses rmdir anyway. Returns how many were removed; no cgroups here (or not root) removes none.
 */
export async function sweepStaleCellCgroups(
  options: { minAgeMs?: number; prefix?: string } = {},
  root = CGROUP_ROOT,
): Promise<number> {
  if (process.getuid?.() !== 0) return 0;
  const minAgeMs = options.minAgeMs ?? 60_000;
  const parents = existsSync(join(root, "cgroup.controllers"))
    ? [join(root, "ironclaw")]
    : await v1Parents(root).catch(() => []);
  let removed = 0;
  for (const parent of parents) {
    const entries = await readdir(parent, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isDirectory() || !entry.name.startsWith(options.prefix ?? "")) continue;
      const dir = join(parent, entry.name);
      const procs = await readFile(join(dir, "cgroup.procs"), "utf8").catch(() => undefined);
      const made = await stat(dir).catch(() => undefined);
      if (procs !== "" || !made || Date.now() - made.mtimeMs < minAgeMs) continue;
      if (
        await rmdir(dir).then(
          () => true,
          () => false,
        )
      )
        removed++;
    }
  }
  return removed;
}

/** Where cell groups go in v1: pids under pids/ironclaw/, memory under the warden's own memory group. */
async function v1Parents(root: string): Promise<[pids: string, memory: string]> {
  return [join(root, "pids", "ironclaw"), join(root, "memory", await ownV1Group("memory"), "ironclaw")];
}

/** The warden's own group in a v1 hierarchy, from /proc/self/cgroup ("4:memory:/some/path"). */
async function ownV1Group(controller: string): Promise<string> {
  for (const line of (await readFile("/proc/self/cgroup", "utf8")).split("\n")) {
    const [, controllers = "", path = ""] = line.split(":");
    if (controllers.split(",").includes(controller)) return path;
  }
  throw new Error(`no ${controller} cgroup hierarchy is mounted`);
}

/**
 * Kills stragglers (a cell's processes can outlive bwrap for a moment after a SIGKILL), then removes the
 * groups; rmdir fails while a task is still being torn down, so it is retried for a while.
 */
/** How long a group's removal is waited for before it is left to removeLater. */
const REMOVE_WAIT_MS = 5_000;

async function removeGroups(dirs: string[]): Promise<void> {
  for (const dir of [...dirs].reverse()) {
    const started = Date.now();
    for (let attempt = 0; ; attempt++) {
      const procs = await readFile(join(dir, "cgroup.procs"), "utf8").catch(() => "");
      for (const pid of procs.split("\n").filter(Boolean)) {
        try {
          process.kill(Number(pid), "SIGKILL");
        } catch {
          // already gone
        }
      }
      const removed = await rmdir(dir).then(
        () => true,
        (error: NodeJS.ErrnoException) => error.code === "ENOENT",
      );
      if (removed) break;
      const waited = Date.now() - started;
      if (waited >= REMOVE_WAIT_MS) {
        removeLater(dir);
        break;
      }
      // The killed processes leave within some milliseconds (a cell's exit waits on this, and a command cell's
      // on that its tree is read back): look every few ms at first, then every 50 ms.
      const delay = waited < 200 ? Math.min(4, 2 ** attempt) : 50;
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/**
 * A group whose last task is a zombie nobody has reaped yet stays busy past the wait above (an init that reaps
 * slowly): keep trying in the background for a minute, without holding the process open for it.
 */
function removeLater(dir: string, attemptsLeft = 60): void {
  setTimeout(() => {
    void rmdir(dir).then(
      () => undefined,
      (error: NodeJS.ErrnoException) => {
        if (error.code !== "ENOENT" && attemptsLeft > 1) removeLater(dir, attemptsLeft - 1);
      },
    );
  }, 1_000).unref();
}
