import { lstatSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { SKILLS_IN_CELL } from "../skills-dir.js";
import { PACKAGE_IN_CELL } from "../startup-snapshot.js";

/** Resource limits of one bubblewrap cell. */
export interface BwrapLimits {
  /** Writable private memory per process (RLIMIT_DATA): what a runaway allocation hits. */
  memoryMiB: number;
  /** Processes and threads inside the cell's user namespace: a fork bomb stops here. */
  maxProcesses: number;
  /** The largest file the cell may write (RLIMIT_FSIZE). */
  maxFileMiB: number;
  /** Size of the one tmpfs at /tmp, which holds /tmp/workspace: the quota of everything scratch. */
  workspaceMiB: number;
  /** Size of /dev/shm, the only writable place under an otherwise read-only /dev. */
  shmMiB: number;
  /**
   * The brain's quota, all files together: the size of its disk image when the warden is root and can mount
   * one, otherwise the size a directory brain is checked against (see doctor).
   */
  brainMiB: number;
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
  shmMiB: 32,
  brainMiB: 1024,
  openFiles: 1024,
  // One node at its data limit plus /tmp and /dev/shm full, with room for the tools the agent runs.
  cellMemoryMiB: 1024,
  cellTasks: 1024,
};

export { PACKAGE_IN_CELL };
export const BRAIN_IN_CELL = "/mnt/brain";
/** Where command's agent and gate work: the brain's `work/`, an attached worktree where the backend can. */
export const WORK_IN_CELL = `${BRAIN_IN_CELL}/work`;
/** Where node's own prefix is bound when it is not under /usr: a fixed path, so no host path is in argv. */
export const NODE_PREFIX_IN_CELL = "/opt/node";
/** What tools may read but not change (see the agent's tool sandbox): what grants capabilities, and the index. */
export const TOOL_READONLY_IN_CELL = [`${BRAIN_IN_CELL}/config`, `${BRAIN_IN_CELL}/db`];

export interface BwrapCommand {
  packageRoot: string;
  /** The parts of the package root the runtime needs (dist/ or src/, node_modules/, package.json). */
  packageParts: string[];
  brainDir: string;
  /** Bound at /mnt/brain/work over the brain: a stage slot an order's worktree is attached to later. */
  workDir?: string;
  /** The user's installed skills (or a blank cell's slot for them), bound read-only at /mnt/skills. */
  skillsDir?: string;
  nodeArgs: string[];
  limits: BwrapLimits;
  allowNetwork: boolean;
  env?: Record<string, string>;
  /** The node binary the cell runs; default the warden's own. */
  nodePath?: string;
  /** Where node's prefix (see nodePrefixOf) is bound from, when not from itself: a root warden's stage. */
  nodePrefixSource?: string;
  /** A host directory holding the built-in embedder's word table, bound read-only as IRONCLAW_HOME/embeddings. */
  embeddingsDir?: string;
  /** Run tool processes in a nested sandbox of their own (the runtime reads this from its environment). */
  toolSandbox: boolean;
}

/**
 * prlimit + bwrap. The rlimits are set before bwrap creates the user namespace, so the process limit is counted
 * per cell (the kernel charges RLIMIT_NPROC per user namespace). Every bwrap option, the host paths and the
 * environment among them, travels in `bwrapArgs` through fd 3 (`--args 3`): the command line of bwrap, which is
 * also what the cell sees as /proc/1/cmdline, holds only the in-cell command, and host `ps` shows no values.
 */
export function buildBwrapArgs(command: BwrapCommand): { file: string; args: string[]; bwrapArgs: string[] } {
  const mib = 1024 * 1024;
  const { limits } = command;
  const nodePath = command.nodePath ?? process.execPath;
  const prefix = nodePrefixOf(nodePath);
  const nodeInCell = prefix ? join(NODE_PREFIX_IN_CELL, relative(prefix, nodePath)) : nodePath;
  const prlimit = [
    // RLIMIT_DATA, not RLIMIT_AS: V8 and Go (esbuild under tsx) reserve gigabytes of address space they never
    // touch, while RLIMIT_DATA counts only memory that can actually be written.
    `--data=${(limits.memoryMiB + v8ReserveMiB()) * mib}`,
    `--nproc=${limits.maxProcesses}`,
    `--fsize=${limits.maxFileMiB * mib}`,
    `--nofile=${limits.openFiles}`,
    "--core=0",
  ];
  const path = `${prefix ? `${NODE_PREFIX_IN_CELL}/bin:` : ""}/usr/local/bin:/usr/bin:/bin`;
  const bwrapArgs = [
    // No --disable-userns here: the runtime nests the tool sandbox in a user namespace of its own, and that
    // sandbox disables user namespaces for the tools.
    ...["--unshare-all", "--unshare-user"],
    ...(command.allowNetwork ? ["--share-net"] : []),
    ...["--die-with-parent", "--new-session", "--uid", "1000", "--gid", "1000", "--hostname", "cell"],
    ...systemBinds(),
    ...(prefix ? ["--ro-bind", command.nodePrefixSource ?? prefix, NODE_PREFIX_IN_CELL] : []),
    ...command.packageParts.flatMap((part) => [
      "--ro-bind",
      join(command.packageRoot, part),
      join(PACKAGE_IN_CELL, part),
    ]),
    ...(command.embeddingsDir ? ["--ro-bind", command.embeddingsDir, `${PACKAGE_IN_CELL}/embeddings`] : []),
    ...["--bind", command.brainDir, BRAIN_IN_CELL],
    ...(command.workDir ? ["--bind", command.workDir, WORK_IN_CELL] : []),
    ...(command.skillsDir ? ["--ro-bind", command.skillsDir, SKILLS_IN_CELL] : []),
    ...["--proc", "/proc", "--dev", "/dev"],
    // /dev is a tmpfs of bwrap's: left writable it would take files up to half the host's RAM. Only a sized
    // /dev/shm stays writable.
    ...["--size", String(limits.shmMiB * mib), "--tmpfs", "/dev/shm", "--remount-ro", "/dev"],
    // One tmpfs for /tmp and the workspace in it, so its size is the quota of all scratch space together.
    ...["--size", String(limits.workspaceMiB * mib), "--tmpfs", "/tmp", "--dir", "/tmp/workspace"],
    // The sandbox's own root is a tmpfs bwrap built; make it read-only too, so only the brain and the tmpfs
    // mounts are writable (seed 003 §11: immutable rootfs, persistence only in the brain).
    ...["--remount-ro", "/"],
    ...["--chdir", "/tmp/workspace", "--clearenv"],
    ...["--setenv", "PATH", path, "--setenv", "HOME", "/tmp/workspace"],
    ...["--setenv", "IRONCLAW_LOG", process.env.IRONCLAW_LOG ?? "warn"],
    ...(command.embeddingsDir ? ["--setenv", "IRONCLAW_HOME", PACKAGE_IN_CELL] : []),
    ...(command.toolSandbox
      ? [
          ...["--setenv", "IRONCLAW_TOOL_SANDBOX", "bwrap"],
          ...["--setenv", "IRONCLAW_TOOL_READONLY", TOOL_READONLY_IN_CELL.join(":")],
        ]
      : []),
    ...Object.entries(command.env ?? {}).flatMap(([name, value]) => ["--setenv", name, value]),
    ...["--setenv", "NODE_OPTIONS", bwrapNodeOptions(limits)],
  ];
  return {
    file: "prlimit",
    args: [...prlimit, "--", "bwrap", "--args", "3", "--", nodeInCell, ...command.nodeArgs],
    bwrapArgs,
  };
}

/**
 * NODE_OPTIONS of a bwrap cell: a heap limit under its data limit, so a runaway runtime meets a clean
 * out-of-memory error first. The bundle's code cache is made for exactly this value (see cell-loader.ts).
 */
export function bwrapNodeOptions(limits: BwrapLimits): string {
  return `--max-old-space-size=${Math.max(64, Math.floor(limits.memoryMiB * 0.75))}`;
}

/**
 * Address space RLIMIT_DATA counts although it is never written, on the Node this host runs cells with (the
 * warden's own). Node 20's runtime shows ~50 MiB of VmData at start and ~175 MiB with the agent loaded; Node 24's
 * shows ~560 MiB and ~1.2 GiB for the same (V8 reserves its cages writable) and does not start under less. The
 * reserve is added to the cell's limit so the limit still bounds what the cell writes; on a root host the cell's
 * cgroup bounds its real memory regardless.
 */
export function v8ReserveMiB(nodeMajor = Number(process.versions.node.split(".")[0])): number {
  return nodeMajor >= 22 ? 2048 : 0;
}

/** The bwrap options as `--args` reads them: NUL-terminated strings. */
export function encodeBwrapArgs(bwrapArgs: string[]): Buffer {
  for (const arg of bwrapArgs) {
    if (arg.includes("\0")) throw new Error(`a bwrap argument holds a NUL byte: ${JSON.stringify(arg)}`);
  }
  return Buffer.from(bwrapArgs.map((arg) => `${arg}\0`).join(""), "utf8");
}

/**
 * Read-only system directories: /usr (node and its shared libraries, bash and bwrap for tools), the merged-/usr
 * links. /etc, /home, /root, /var and /tmp of the host are not there at all.
 */
function systemBinds(): string[] {
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
  return args;
}

/** The directory above node's bin/ when /usr does not hold it already (nvm, the npm `node` package). */
export function nodePrefixOf(nodePath: string): string | undefined {
  return nodePath.startsWith("/usr/") ? undefined : dirname(dirname(nodePath));
}
