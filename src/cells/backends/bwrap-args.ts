import { lstatSync } from "node:fs";
import { dirname } from "node:path";

/** Resource limits of one bubblewrap cell. */
export interface BwrapLimits {
  /** Writable private memory per process (RLIMIT_DATA): what a runaway allocation hits. */
  memoryMiB: number;
  /** Processes and threads inside the cell's user namespace: a fork bomb stops here. */
  maxProcesses: number;
  /** The largest file the cell may write: bounds a disk fill of the brain directory per file. */
  maxFileMiB: number;
  /** Size of the tmpfs at /tmp/workspace (and of /tmp). */
  workspaceMiB: number;
  openFiles: number;
  /** Memory of the whole cell, its tmpfs pages included: its cgroup's limit, when the warden is root. */
  cellMemoryMiB: number;
  /** Tasks (processes and threads) of the whole cell: its cgroup's pids.max, when the warden is root. */
  cellTasks: number;
}

export const DEFAULT_BWRAP_LIMITS: BwrapLimits = {
  memoryMiB: 512,
  maxProcesses: 256,
  maxFileMiB: 256,
  workspaceMiB: 128,
  openFiles: 1024,
  // One node at its data limit plus both tmpfs full, with room for the tools the agent runs.
  cellMemoryMiB: 1024,
  cellTasks: 1024,
};

export const PACKAGE_IN_CELL = "/opt/ironclaw";
export const BRAIN_IN_CELL = "/mnt/brain";

export interface BwrapCommand {
  packageRoot: string;
  brainDir: string;
  nodeArgs: string[];
  limits: BwrapLimits;
  allowNetwork: boolean;
  env?: Record<string, string>;
  /** The node binary the cell runs; default the warden's own. */
  nodePath?: string;
  /** Where node's prefix (see nodePrefixOf) is bound from, when not from itself: a root warden's stage. */
  nodePrefixSource?: string;
}

/**
 * prlimit + bwrap arguments. The rlimits are set before bwrap creates the user namespace, so the process
 * limit is counted per cell (the kernel charges RLIMIT_NPROC per user namespace).
 */
export function buildBwrapArgs(command: BwrapCommand): { file: string; args: string[] } {
  const mib = 1024 * 1024;
  const { limits } = command;
  const nodePath = command.nodePath ?? process.execPath;
  const prlimit = [
    // RLIMIT_DATA, not RLIMIT_AS: V8 and Go (esbuild under tsx) reserve gigabytes of address space they never
    // touch, while RLIMIT_DATA counts only memory that can actually be written.
    `--data=${limits.memoryMiB * mib}`,
    `--nproc=${limits.maxProcesses}`,
    `--fsize=${limits.maxFileMiB * mib}`,
    `--nofile=${limits.openFiles}`,
    "--core=0",
  ];
  const bwrap = [
    ...["--unshare-all", "--unshare-user", "--disable-userns"],
    ...(command.allowNetwork ? ["--share-net"] : []),
    ...["--die-with-parent", "--new-session", "--uid", "1000", "--gid", "1000", "--hostname", "cell"],
    ...systemBinds(nodePath, command.nodePrefixSource),
    ...["--ro-bind", command.packageRoot, PACKAGE_IN_CELL],
    ...["--bind", command.brainDir, BRAIN_IN_CELL],
    ...["--proc", "/proc", "--dev", "/dev"],
    ...["--size", String(limits.workspaceMiB * mib), "--tmpfs", "/tmp"],
    ...["--size", String(limits.workspaceMiB * mib), "--tmpfs", "/tmp/workspace"],
    // The sandbox's own root is a tmpfs bwrap built; make it read-only too, so only the brain and the tmpfs
    // workspace are writable (seed 003 §11: immutable rootfs, persistence only in the brain).
    ...["--remount-ro", "/"],
    ...["--chdir", "/tmp/workspace", "--clearenv"],
    ...["--setenv", "PATH", "/usr/local/bin:/usr/bin:/bin", "--setenv", "HOME", "/tmp/workspace"],
    ...["--setenv", "IRONCLAW_LOG", process.env.IRONCLAW_LOG ?? "warn"],
    ...Object.entries(command.env ?? {}).flatMap(([name, value]) => ["--setenv", name, value]),
    ...[
      "--setenv",
      "NODE_OPTIONS",
      `--max-old-space-size=${Math.max(64, Math.floor(limits.memoryMiB * 0.75))}`,
    ],
    "--",
    nodePath,
    ...command.nodeArgs,
  ];
  return { file: "prlimit", args: [...prlimit, "--", "bwrap", ...bwrap] };
}

/**
 * Read-only system directories: /usr (node and its shared libraries, /bin/sh for tools), the merged-/usr
 * links, and node's own prefix when it lives elsewhere. /etc, /home, /root, /var and /tmp of the host are
 * not there at all.
 */
function systemBinds(nodePath: string, prefixSource: string | undefined): string[] {
  const args = ["--ro-bind", "/usr", "/usr"];
  for (const dir of ["/bin", "/sbin", "/lib", "/lib64", "/lib32"]) {
    try {
      const info = lstatSync(dir);
      if (info.isSymbolicLink()) args.push("--symlink", `usr${dir}`, dir);
      else if (info.isDirectory()) args.push("--ro-bind", dir, dir);
    } catch {
      // not on this host
    }
  }
  const prefix = nodePrefixOf(nodePath);
  if (prefix) args.push("--ro-bind", prefixSource ?? prefix, prefix);
  return args;
}

/** The directory above node's bin/ when /usr does not hold it already (nvm, the npm `node` package). */
export function nodePrefixOf(nodePath: string): string | undefined {
  return nodePath.startsWith("/usr/") ? undefined : dirname(dirname(nodePath));
}
