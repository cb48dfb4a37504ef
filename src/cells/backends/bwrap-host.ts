import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import type { Writable } from "node:stream";
import { createLogger, ironclawHome, type Logger } from "../../core/index.js";
import { type CellHandle, CellStartError, type CellStartSpec } from "../cell.js";
import { type CellCgroup, createCellCgroup, sweepStaleCellCgroups } from "../cell-cgroup.js";
import { probeBrainImages, probeToolSandbox } from "../cell-limits.js";
import { duplexOf, launchChildCell } from "../child-cell.js";
import { defaultRuntime, type GuestRuntime } from "../guest-runtime.js";
import { SKILLS_IN_CELL } from "../skills-dir.js";
import { prepareWordTableDir } from "../word-table-home.js";
import {
  BRAIN_IN_CELL,
  type BwrapLimits,
  bwrapNodeOptions,
  DEFAULT_BWRAP_LIMITS,
  encodeBwrapArgs,
  PACKAGE_IN_CELL,
} from "./bwrap-args.js";
import { type BwrapBrain, prepareBwrapBrain, watchBrainQuota } from "./bwrap-brain.js";
import { type CellCommand, cellCommand } from "./bwrap-command.js";
import { isPublicRootDir } from "./public-path.js";
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
  /**
   * The host uids of blank pool cells (root warden): each blank cell takes the next one, and none is used
   * again before the whole range has been (see pool-uids.ts). Default 2000000000, 100000000 of them.
   */
  poolUids?: { first: number; count: number };
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

export type Owner = { uid: number; gid: number };
export interface HostFeatures {
  images: boolean;
  tools: boolean;
  embeddings: string | undefined;
  /** Node arguments that start the runtime from its startup snapshot, when this node loads one for these flags. */
  snapshot: string[] | undefined;
}

/** What the bwrap backend's cold starts and blank cells share: settings, host probes, brains, cgroups, spawning. */
export interface BwrapHost {
  readonly options: BwrapBackendOptions;
  readonly runtime: GuestRuntime;
  readonly limits: BwrapLimits;
  readonly asRoot: boolean;
  readonly nodePath: string;
  readonly logger: Logger;
  features(): Promise<HostFeatures>;
  /** The user's brain, ready to mount or bind for `owner` (undefined: no root); CellStartError otherwise. */
  prepareBrain(spec: CellStartSpec, owner: Owner | undefined): Promise<BwrapBrain>;
  /** The cell's own cgroups, or undefined (and a warning) where they cannot be used: rlimits still hold. */
  cgroup(name: string): Promise<CellCgroup | undefined>;
  /**
   * The prlimit + bwrap command (staged under a root warden) that runs the inmate: `identity` is its --user
   * (and --blank) arguments, `brain` what /mnt/brain is (a slot for a blank cell's brain to come), `skills`
   * the host folder bound read-only at /mnt/skills (or a slot for a blank cell's, see bwrap-attach-skills.ts).
   */
  command(
    spec: Pick<CellStartSpec, "handler" | "maxFrameBytes" | "allowNetwork" | "env" | "workSlot">,
    identity: string[],
    brain: BwrapBrain | { kind: "slot" },
    owner: Owner | undefined,
    cgroupProcs: string[] | undefined,
    skills: { dir: string } | { kind: "slot" },
  ): Promise<CellCommand>;
  /** Spawns the command and waits for the runtime's first Heartbeat. */
  launch(command: CellCommand, spec: CellStartSpec, cleanup: () => Promise<void>): Promise<CellHandle>;
  /** A directory brain's quota, checked while its cell runs. */
  watchQuota(cell: CellHandle, brain: BwrapBrain): void;
}

export function createBwrapHost(options: BwrapBackendOptions): BwrapHost {
  const asRoot = process.getuid?.() === 0;
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
  const limits = { ...DEFAULT_BWRAP_LIMITS, ...options.limits };
  const runtime = options.runtime ?? defaultRuntime();
  let hostFeatures: Promise<HostFeatures> | undefined;
  let swept: Promise<number> | undefined;
  const features = () => {
    hostFeatures ??= probeFeatures(options, asRoot, warnOnce, () =>
      runtime.startupSnapshot?.(options.nodePath ?? process.execPath, bwrapNodeOptions(limits)),
    );
    return hostFeatures;
  };
  return {
    options,
    runtime,
    limits,
    asRoot,
    nodePath: options.nodePath ?? process.execPath,
    logger,
    features,
    async prepareBrain(spec, owner) {
      const host = await features();
      return prepareBwrapBrain({
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
    },
    async cgroup(name) {
      if (!asRoot || options.cgroups === false) return undefined;
      // Once per backend: groups left by a warden that was killed before it could remove its cells' groups.
      swept ??= sweepStaleCellCgroups().catch(() => 0);
      await swept;
      const made = await createCellCgroup(`${name}-${randomBytes(4).toString("hex")}`, {
        memoryMiB: limits.cellMemoryMiB,
        maxTasks: limits.cellTasks,
      });
      if (!("unavailable" in made)) return made;
      noCgroups(made.unavailable);
      return undefined;
    },
    async command(spec, identity, brain, owner, cgroupProcs, skills) {
      const host = await features();
      return cellCommand(
        {
          packageRoot: runtime.packageRoot,
          packageParts: runtime.parts,
          nodePath: options.nodePath ?? process.execPath,
          nodeArgs: [
            ...(host.snapshot ?? runtime.nodeArgs(PACKAGE_IN_CELL)),
            ...["--channel", "stdio", "--brain", BRAIN_IN_CELL, "--skills", SKILLS_IN_CELL, ...identity],
            ...["--handler", spec.handler ?? "agent"],
            ...(spec.maxFrameBytes ? ["--max-frame-bytes", String(spec.maxFrameBytes)] : []),
          ],
          limits,
          allowNetwork: spec.allowNetwork === true,
          toolSandbox: host.tools,
          ...(host.embeddings ? { embeddingsDir: host.embeddings } : {}),
          ...(spec.env ? { env: spec.env } : {}),
          ...("dir" in skills ? { skillsDir: skills.dir } : {}),
        },
        brain,
        owner
          ? {
              owner,
              cgroupProcs: cgroupProcs ?? [],
              workSlot: spec.workSlot === true,
              skillsSlot: !("dir" in skills),
            }
          : undefined,
        // Asked at every start (a few stat calls): an operator's chmod takes effect at the next one.
        isPublicRootDir,
      );
    },
    async launch(command, spec, cleanup) {
      // fd 3 carries bwrap's options (--args 3), so neither host `ps` nor the cell's /proc/1 shows them.
      const child = spawn(command.file, command.args, {
        stdio: ["pipe", "pipe", "pipe", "pipe"],
        env: { PATH: "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin" },
      });
      const argsPipe = child.stdio[3] as Writable | null;
      argsPipe?.on("error", () => {}); // a bwrap that never started never reads them: its exit says why
      argsPipe?.end(encodeBwrapArgs(command.bwrapArgs));
      return launchChildCell({
        backend: "bwrap",
        isolated: true,
        spec,
        child,
        channel: duplexOf(child),
        cleanup,
      }).catch((error: Error) => {
        throw explainStartFailure(error);
      });
    },
    watchQuota(cell, brain) {
      if (brain.kind === "dir") watchBrainQuota(cell, brain, options.brainCheckMs ?? 10_000, logger);
    },
  };
}

async function probeFeatures(
  options: BwrapBackendOptions,
  asRoot: boolean,
  warnOnce: (warning: string) => void,
  startupSnapshot: () => Promise<string[] | undefined> | undefined,
): Promise<HostFeatures> {
  const home = options.embeddingsHome === undefined ? ironclawHome() : options.embeddingsHome;
  const [images, tools, table, snapshot] = await Promise.all([
    options.brainImages === false ? undefined : probeBrainImages(),
    options.toolSandbox === false ? undefined : probeToolSandbox(),
    home === false ? undefined : prepareWordTableDir(home),
    startupSnapshot(),
  ]);
  if (images && !images.usable && asRoot)
    warnOnce(`bwrap brains are directories whose quota is only checked (${images.detail})`);
  if (tools && !tools.usable)
    warnOnce(`bwrap cells run tools without their own sandbox (${tools.detail}): tools can write config/`);
  if (table && "unavailable" in table)
    warnOnce(`cells build the built-in embedder's word table themselves: ${table.unavailable}`);
  return {
    images: options.brainImages ?? images?.usable === true,
    tools: options.toolSandbox ?? tools?.usable === true,
    embeddings: table && "dir" in table ? table.dir : undefined,
    snapshot,
  };
}
