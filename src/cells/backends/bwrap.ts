import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { Writable } from "node:stream";
import { createLogger, ironclawHome, type Logger } from "../../core/index.js";
import { releaseBrainLock } from "../brain-lock.js";
import { measureBrainBytes } from "../brain-usage.js";
import {
  assertUserId,
  type CellBackend,
  type CellHandle,
  CellStartError,
  type CellStartSpec,
} from "../cell.js";
import { type CellCgroup, createCellCgroup } from "../cell-cgroup.js";
import { probeBrainImages, probeToolSandbox } from "../cell-limits.js";
import { duplexOf, launchChildCell } from "../child-cell.js";
import { defaultRuntime, type GuestRuntime } from "../guest-runtime.js";
import { prepareWordTableDir } from "../word-table-home.js";
import {
  BRAIN_IN_CELL,
  type BwrapLimits,
  DEFAULT_BWRAP_LIMITS,
  encodeBwrapArgs,
  PACKAGE_IN_CELL,
} from "./bwrap-args.js";
import { type BwrapBrain, prepareBwrapBrain } from "./bwrap-brain.js";
import { cellCommand } from "./bwrap-command.js";
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
  /** Called once per kind of weaker isolation this host forces (no cgroups, no brain images, no tool sandbox). */
  onWarning?: (warning: string) => void;
  /** Per-cell cgroups under a root warden (default on); off only to measure what they cost. */
  cgroups?: boolean;
  /** Brains as loop-mounted images under a root warden: default wherever loop devices and mkfs.ext4 exist. */
  brainImages?: boolean;
  /** Tools in a nested sandbox of their own: default wherever this host can nest one. */
  toolSandbox?: boolean;
  /** The host's IRONCLAW_HOME, whose embeddings/ (the built-in embedder's word table) cells bind; false: none. */
  embeddingsHome?: string | false;
  /** How often the size of a directory brain is checked while its cell runs (default 10 s). */
  brainCheckMs?: number;
}

type Owner = { uid: number; gid: number };

/** bubblewrap: every namespace unshared, no network unless allowed, read-only system, rlimits, quotas. */
export function createBwrapBackend(options: BwrapBackendOptions = {}): CellBackend {
  const runtime = options.runtime ?? defaultRuntime();
  const limits = { ...DEFAULT_BWRAP_LIMITS, ...options.limits };
  const asRoot = process.getuid?.() === 0;
  const nodePath = options.nodePath ?? process.execPath;
  const logger = options.logger ?? createLogger("cells");
  const warned = new Set<string>();
  const warnOnce = (warning: string) => {
    if (warned.has(warning)) return;
    warned.add(warning);
    // Said once: to whoever asked to hear warnings (the CLI prints them), else to the log.
    if (options.onWarning) options.onWarning(warning);
    else logger.warn(warning);
  };
  const noCgroups = (why: string) =>
    warnOnce(
      `bwrap cells run without per-cell cgroups (${why}): only rlimits bound them, per process and per uid`,
    );
  if (!asRoot) noCgroups("the warden is not root");
  let hostFeatures: Promise<{ images: boolean; tools: boolean; embeddings: string | undefined }> | undefined;
  const features = () => {
    hostFeatures ??= (async () => {
      const home = options.embeddingsHome === undefined ? ironclawHome() : options.embeddingsHome;
      const [images, tools, table] = await Promise.all([
        options.brainImages === false ? undefined : probeBrainImages(),
        options.toolSandbox === false ? undefined : probeToolSandbox(),
        home === false ? undefined : prepareWordTableDir(home),
      ]);
      if (images && !images.usable && asRoot)
        warnOnce(`bwrap brains are directories whose quota is only checked (${images.detail})`);
      if (tools && !tools.usable)
        warnOnce(
          `bwrap cells run tools without their own sandbox (${tools.detail}): tools can write config/`,
        );
      if (table && "unavailable" in table)
        warnOnce(`cells build the built-in embedder's word table themselves: ${table.unavailable}`);
      return {
        images: options.brainImages ?? images?.usable === true,
        tools: options.toolSandbox ?? tools?.usable === true,
        embeddings: table && "dir" in table ? table.dir : undefined,
      };
    })();
    return hostFeatures;
  };
  return {
    name: "bwrap",
    isolated: true,
    async start(spec: CellStartSpec): Promise<CellHandle> {
      assertUserId(spec.userId);
      // Without root the cell is the warden's own uid inside a user namespace, and runAs cannot apply.
      const owner = asRoot ? cellOwner(spec, options) : undefined;
      const host = await features();
      const brain = await prepareBwrapBrain({
        userId: spec.userId,
        userDir: spec.userDir,
        owner,
        images: asRoot && host.images,
        quotaMiB: limits.brainMiB,
        seed: spec.brainSeed,
      }).catch((error: Error) => {
        if (error instanceof CellStartError) throw error;
        throw new CellStartError(`could not prepare the brain in ${spec.userDir}: ${error.message}`, {
          cause: error,
        });
      });
      const cgroup =
        owner && options.cgroups !== false ? await cellCgroup(spec.userId, limits, noCgroups) : undefined;
      const release = async () => {
        await cgroup?.remove();
        if (brain.kind === "image") await releaseBrainLock(brain.lockFile);
      };
      const command = await cellCommand(
        {
          packageRoot: runtime.packageRoot,
          packageParts: runtime.parts,
          nodePath,
          nodeArgs: [
            ...runtime.nodeArgs(PACKAGE_IN_CELL),
            ...["--channel", "stdio", "--brain", BRAIN_IN_CELL, "--user", spec.userId],
            ...["--handler", spec.handler ?? "agent"],
            ...(spec.maxFrameBytes ? ["--max-frame-bytes", String(spec.maxFrameBytes)] : []),
          ],
          limits,
          allowNetwork: spec.allowNetwork === true,
          toolSandbox: host.tools,
          ...(host.embeddings ? { embeddingsDir: host.embeddings } : {}),
          ...(spec.env ? { env: spec.env } : {}),
        },
        brain,
        owner ? { owner, cgroupProcs: cgroup?.procsFiles ?? [] } : undefined,
      ).catch(async (error) => {
        await release();
        throw error;
      });
      // fd 3 carries bwrap's options (--args 3), so neither host `ps` nor the cell's /proc/1 shows them.
      const child = spawn(command.file, command.args, {
        stdio: ["pipe", "pipe", "pipe", "pipe"],
        env: { PATH: "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin" },
      });
      const argsPipe = child.stdio[3] as Writable | null;
      argsPipe?.on("error", () => {}); // a bwrap that never started never reads them: its exit says why
      argsPipe?.end(encodeBwrapArgs(command.bwrapArgs));
      const cell = await launchChildCell({
        backend: "bwrap",
        isolated: true,
        spec,
        child,
        channel: duplexOf(child),
        cleanup: release,
      }).catch((error: Error) => {
        throw explainStartFailure(error);
      });
      if (brain.kind === "dir") watchBrainQuota(cell, brain, options.brainCheckMs ?? 10_000, logger);
      return cell;
    },
  };
}

/**
 * A directory brain has no quota the kernel enforces (no root, or no loop devices): the warden measures it
 * while the cell runs and stops the cell once it is over. It cannot start again until space is freed.
 */
function watchBrainQuota(
  cell: CellHandle,
  brain: Extract<BwrapBrain, { kind: "dir" }>,
  everyMs: number,
  logger: Logger,
): void {
  let checking = false;
  const timer = setInterval(() => {
    if (checking) return;
    checking = true;
    void measureBrainBytes(brain.dir)
      .then((usage) => {
        if (usage.bytes <= brain.quotaBytes) return;
        clearInterval(timer);
        const reason = `the brain passed its quota of ${Math.round(brain.quotaBytes / 1048576)} MiB`;
        logger.warn({ user: cell.userId, bytes: usage.bytes }, reason);
        return cell.stop({ timeoutMs: 2_000, reason }).then(() => undefined);
      })
      .catch(() => undefined)
      .finally(() => {
        checking = false;
      });
  }, everyMs);
  timer.unref();
  void cell.exited.then(() => clearInterval(timer));
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
