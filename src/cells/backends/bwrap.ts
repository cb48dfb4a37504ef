import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { mkdir, open } from "node:fs/promises";
import { createLogger, type Logger } from "../../core/index.js";
import { ensureBrainDir, handBrainTo } from "../brain-dir.js";
import {
  assertUserId,
  type CellBackend,
  type CellHandle,
  CellStartError,
  type CellStartSpec,
} from "../cell.js";
import { type CellCgroup, createCellCgroup } from "../cell-cgroup.js";
import { duplexOf, launchChildCell } from "../child-cell.js";
import { defaultRuntime, type GuestRuntime } from "../guest-runtime.js";
import {
  BRAIN_IN_CELL,
  type BwrapCommand,
  type BwrapLimits,
  buildBwrapArgs,
  DEFAULT_BWRAP_LIMITS,
  nodePrefixOf,
  PACKAGE_IN_CELL,
} from "./bwrap-args.js";
import { type StageSource, stageCommand, stagedPath } from "./bwrap-stage.js";
import { explainStartFailure } from "./start-failure.js";

export interface BwrapBackendOptions {
  runtime?: GuestRuntime;
  limits?: Partial<BwrapLimits>;
  /**
   * The host uid/gid a cell runs as when the warden itself is root and the start spec names no `runAs`:
   * never run a cell as host root, even inside a user namespace. Default nobody (65534).
   */
  sandboxUid?: number;
  sandboxGid?: number;
  /** The node binary cells run; default the warden's own. */
  nodePath?: string;
  logger?: Logger;
  /** Called once when cells run without per-cell cgroups (the warden is not root, or cgroups are unusable). */
  onWarning?: (warning: string) => void;
}

type Owner = { uid: number; gid: number };

/** bubblewrap: every namespace unshared, no network unless allowed, read-only system, rlimits. */
export function createBwrapBackend(options: BwrapBackendOptions = {}): CellBackend {
  const runtime = options.runtime ?? defaultRuntime();
  const limits = { ...DEFAULT_BWRAP_LIMITS, ...options.limits };
  const asRoot = process.getuid?.() === 0;
  const nodePath = options.nodePath ?? process.execPath;
  const logger = options.logger ?? createLogger("cells");
  let warned = false;
  const warnOnce = (why: string) => {
    if (warned) return;
    warned = true;
    const warning = `bwrap cells run without per-cell cgroups (${why}): only rlimits bound them, per process and per uid`;
    logger.warn(warning);
    options.onWarning?.(warning);
  };
  if (!asRoot) warnOnce("the warden is not root");
  return {
    name: "bwrap",
    isolated: true,
    async start(spec: CellStartSpec): Promise<CellHandle> {
      assertUserId(spec.userId);
      // Without root the cell is the warden's own uid inside a user namespace, and runAs cannot apply.
      const owner = asRoot ? cellOwner(spec, options) : undefined;
      const brain = await prepareUserDir(spec.userDir, owner).catch((error: Error) => {
        if (error instanceof CellStartError) throw error;
        throw new CellStartError(`could not prepare the brain in ${spec.userDir}: ${error.message}`, {
          cause: error,
        });
      });
      const command: BwrapCommand = {
        packageRoot: runtime.packageRoot,
        brainDir: brain.dir,
        nodePath,
        nodeArgs: [
          ...runtime.nodeArgs(PACKAGE_IN_CELL),
          ...["--channel", "stdio", "--brain", BRAIN_IN_CELL, "--user", spec.userId],
          ...["--handler", spec.handler ?? "agent"],
          ...(spec.maxFrameBytes ? ["--max-frame-bytes", String(spec.maxFrameBytes)] : []),
        ],
        limits,
        allowNetwork: spec.allowNetwork === true,
        ...(spec.env ? { env: spec.env } : {}),
      };
      const cgroup = owner ? await cellCgroup(spec.userId, limits, warnOnce) : undefined;
      const { file, args } = owner
        ? await stagedCommand(command, owner, cgroup?.procsFiles ?? []).catch(async (error) => {
            await cgroup?.remove();
            throw error;
          })
        : buildBwrapArgs(command);
      const child = spawn(file, args, {
        stdio: ["pipe", "pipe", "pipe"],
        env: { PATH: "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin" },
      });
      return launchChildCell({
        backend: "bwrap",
        isolated: true,
        spec,
        child,
        channel: duplexOf(child),
        ...(cgroup ? { cleanup: () => cgroup.remove() } : {}),
      }).catch((error: Error) => {
        throw explainStartFailure(error);
      });
    },
  };
}

/** The cell's own cgroups, or undefined (and a warning) where they cannot be used: rlimits still hold. */
async function cellCgroup(
  userId: string,
  limits: BwrapLimits,
  warn: (why: string) => void,
): Promise<CellCgroup | undefined> {
  const name = `${userId}-${randomBytes(4).toString("hex")}`;
  const made = await createCellCgroup(name, { memoryMiB: limits.cellMemoryMiB, maxTasks: limits.cellTasks });
  if (!("unavailable" in made)) return made;
  warn(made.unavailable);
  return undefined;
}

/** The host uid/gid of this user's cell under a root warden: the spec's runAs, else the backend default. */
function cellOwner(spec: CellStartSpec, options: BwrapBackendOptions): Owner {
  const owner = spec.runAs ?? { uid: options.sandboxUid ?? 65534, gid: options.sandboxGid ?? 65534 };
  const valid = (id: number) => Number.isInteger(id) && id > 0 && id < 0xffffffff;
  if (!valid(owner.uid) || !valid(owner.gid)) {
    throw new CellStartError(
      `cell uid/gid ${owner.uid}/${owner.gid} for ${spec.userId} is not allowed: use whole numbers from 1 to 4294967294 (a cell never runs as root)`,
    );
  }
  return owner;
}

/**
 * users/<u> and its brain. Under a root warden: users/<u> is root's alone (0700), so no other cell uid can
 * even reach this user's brain or brain.ext4, and the brain belongs to the cell uid, 0700.
 */
async function prepareUserDir(userDir: string, owner: Owner | undefined) {
  if (!owner) {
    await mkdir(userDir, { recursive: true, mode: 0o755 });
    return ensureBrainDir(userDir);
  }
  await mkdir(userDir, { recursive: true, mode: 0o700 });
  const dir = await open(userDir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    const info = await dir.stat();
    if (info.uid !== 0 || info.gid !== 0) await dir.chown(0, 0);
    if ((info.mode & 0o077) !== 0) await dir.chmod(0o700);
  } finally {
    await dir.close();
  }
  const brain = await ensureBrainDir(userDir);
  await handBrainTo(brain.dir, owner);
  return brain;
}

/** The root warden's command: bwrap binds brain, package and node prefix from the cell's stage. */
function stagedCommand(command: BwrapCommand, owner: Owner, cgroupProcs: string[]) {
  const prefix = nodePrefixOf(command.nodePath ?? process.execPath);
  const sources: StageSource[] = [
    { name: "brain", source: command.brainDir, noFollow: true },
    { name: "package", source: command.packageRoot, noFollow: false },
    ...(prefix ? [{ name: "node" as const, source: prefix, noFollow: false }] : []),
  ];
  const inner = buildBwrapArgs({
    ...command,
    brainDir: stagedPath("brain"),
    packageRoot: stagedPath("package"),
    ...(prefix ? { nodePrefixSource: stagedPath("node") } : {}),
  });
  return stageCommand(sources, owner, cgroupProcs, inner);
}
