import { randomBytes } from "node:crypto";
import { existsSync } from "node:fs";
import { runProgram } from "../core/index.js";
import { createCellCgroup } from "./cell-cgroup.js";
import { firstLine } from "./host-probe.js";

/** One limit of a bwrap cell and whether this host enforces it, for `ironclaw doctor`. */
export interface CellLimitReport {
  limit: string;
  enforced: boolean;
  how: string;
}

let toolSandbox: Promise<{ usable: boolean; detail: string }> | undefined;

/**
 * Whether a cell can nest the tool sandbox: bwrap inside bwrap, with a user namespace of its own. It runs as the
 * cells do (an unprivileged uid under a root warden). Memoised: the answer does not change while we run.
 */
export function probeToolSandbox(): Promise<{ usable: boolean; detail: string }> {
  toolSandbox ??= (async () => {
    const outer = [
      ...["--unshare-all", "--unshare-user", "--die-with-parent", "--uid", "1000", "--gid", "1000"],
      ...["--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--"],
    ];
    const inner = ["bwrap", "--unshare-user", "--unshare-pid", "--disable-userns"];
    const command = [...outer, ...inner, "--die-with-parent", "--dev-bind", "/", "/", "--", "/bin/true"];
    const asRoot = process.getuid?.() === 0;
    const run = asRoot
      ? await runProgram("setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", "bwrap", ...command])
      : await runProgram("bwrap", command);
    return run.ok
      ? { usable: true, detail: "tools run in a nested sandbox (own user and pid namespace)" }
      : { usable: false, detail: firstLine(run.stderr) || run.error || `exit ${run.code}` };
  })();
  return toolSandbox;
}

/** Whether a root warden can give bwrap cells brain images (loop devices and mkfs.ext4). */
export async function probeBrainImages(): Promise<{ usable: boolean; detail: string }> {
  if (process.getuid?.() !== 0) return { usable: false, detail: "the warden is not root" };
  if (!existsSync("/dev/loop-control"))
    return { usable: false, detail: "no loop devices (/dev/loop-control)" };
  const mkfs = await runProgram("mkfs.ext4", ["-V"]);
  if (!mkfs.ok && mkfs.error) return { usable: false, detail: "mkfs.ext4 not found (install e2fsprogs)" };
  return { usable: true, detail: "brain.ext4 images, loop-mounted in each cell's own mount namespace" };
}

/** What a bwrap cell on this host is bounded by, limit by limit. */
export async function reportCellLimits(): Promise<CellLimitReport[]> {
  const cgroup = await createCellCgroup(`doctor-${randomBytes(4).toString("hex")}`, {
    memoryMiB: 64,
    maxTasks: 16,
  });
  const cgroups = "unavailable" in cgroup ? cgroup.unavailable : undefined;
  if (!("unavailable" in cgroup)) await cgroup.remove();
  const [images, tools] = await Promise.all([probeBrainImages(), probeToolSandbox()]);
  return [
    {
      limit: "cell memory (processes and tmpfs together)",
      enforced: cgroups === undefined,
      how: cgroups === undefined ? "a cgroup per cell" : `per process only (RLIMIT_DATA): ${cgroups}`,
    },
    {
      limit: "cell processes",
      enforced: cgroups === undefined,
      how:
        cgroups === undefined
          ? "a cgroup per cell (pids.max)"
          : `RLIMIT_NPROC only, counted in the cell's user namespace: ${cgroups}`,
    },
    {
      limit: "brain disk quota",
      enforced: images.usable,
      how: images.usable
        ? images.detail
        : `checked by the warden at start and while the cell runs, not by the kernel: ${images.detail}`,
    },
    { limit: "workspace and /dev/shm", enforced: true, how: "sized tmpfs mounts, /dev otherwise read-only" },
    {
      limit: "tool processes",
      enforced: tools.usable,
      how: tools.usable
        ? tools.detail
        : `tools share the runtime's namespaces (config/ writable by tools, setsid survivors found by marker only): ${tools.detail}`,
    },
  ];
}
