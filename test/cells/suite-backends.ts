import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  type CellBackend,
  createBwrapBackend,
  createMicrovmBackend,
  createProcessBackend,
  defaultRuntime,
  type ImagePaths,
  imagePaths,
  v8ReserveMiB,
} from "../../src/cells/index.js";
import type { EscapeCaps } from "./escape-scene.js";

/** One backend as the shared suite runs it. */
export interface SuiteBackend {
  name: string;
  /** Why it cannot run on this host, or undefined when it can. */
  unavailable: string | undefined;
  make(home: string): CellBackend;
  caps: EscapeCaps;
  brainHostPath(userDir: string): string;
  startTimeoutMs: number;
}

const BWRAP_LIMITS = {
  memoryMiB: 256,
  maxProcesses: 128,
  maxFileMiB: 32,
  workspaceMiB: 32,
  shmMiB: 16,
  brainMiB: 64,
  cellMemoryMiB: 512,
};
const asRoot = process.getuid?.() === 0;
/** Under a root warden with loop devices the brain is an image; otherwise a directory whose size is checked. */
const bwrapBrainImages = asRoot && existsSync("/dev/loop-control");

function bwrapProblem(): string | undefined {
  const run = spawnSync("bwrap", [
    "--unshare-all",
    "--unshare-user",
    "--ro-bind",
    "/",
    "/",
    "--",
    "/bin/true",
  ]);
  return run.status === 0
    ? undefined
    : `bubblewrap cannot create a sandbox here: ${run.stderr?.toString().trim() || run.error?.message}`;
}

const silent = { onWarning: () => {} };

export const SUITE_BACKENDS: Record<string, () => SuiteBackend> = {
  process: () => ({
    name: "process",
    unavailable: undefined,
    make: () => createProcessBackend({ runtime: defaultRuntime(), ...silent }),
    caps: {
      brainFileMiB: 0,
      brainMiB: 0,
      workspaceMiB: 0,
      shmMiB: 0,
      memoryMiB: 0,
      processes: 0,
      cellMemoryMiB: undefined,
    },
    brainHostPath: (userDir) => join(userDir, "brain"),
    startTimeoutMs: 60_000,
  }),
  bwrap: () => ({
    name: "bwrap",
    unavailable: bwrapProblem(),
    make: () =>
      createBwrapBackend({ runtime: defaultRuntime(), limits: BWRAP_LIMITS, brainCheckMs: 500, ...silent }),
    caps: {
      brainFileMiB: BWRAP_LIMITS.maxFileMiB,
      brainMiB: BWRAP_LIMITS.brainMiB,
      workspaceMiB: BWRAP_LIMITS.workspaceMiB,
      shmMiB: BWRAP_LIMITS.shmMiB,
      // RLIMIT_DATA also counts address space V8 reserves writable and never touches (on Node 24 ~560 MiB for
      // a bare `node`), so on Node 22+ the limit carries a reserve on top (v8ReserveMiB); the cell's cgroup,
      // where there is one, is then the tighter bound on what a cell can really hold.
      memoryMiB: BWRAP_LIMITS.memoryMiB + v8ReserveMiB(),
      processes: BWRAP_LIMITS.maxProcesses,
      // Only a root warden gives each cell a cgroup; without one nothing bounds a cell's processes together.
      cellMemoryMiB: asRoot ? BWRAP_LIMITS.cellMemoryMiB : undefined,
    },
    brainHostPath: (userDir) => join(userDir, bwrapBrainImages ? "brain.ext4" : "brain"),
    startTimeoutMs: 60_000,
  }),
};

/** The image the microvm suite boots: IRONCLAW_IMAGE_DIR, else the one `npm run test:microvm` builds. */
export const TEST_IMAGE_DIR =
  process.env.IRONCLAW_IMAGE_DIR ?? join(process.cwd(), "node_modules/.cache/ironclaw-test-image");
/** The microvm suite's image, which `npm run test:microvm` builds first: a suite without it cannot mean anything. */
export function requireTestImage(): ImagePaths {
  const paths = imagePaths(TEST_IMAGE_DIR);
  if (!existsSync(paths.manifest)) throw new Error(`no cell image in ${paths.dir}: run npm run test:microvm`);
  return paths;
}
const MICROVM = { memoryMiB: 256, brainDiskMiB: 64, workspaceMiB: 64, shmMiB: 16, processes: 256 };

SUITE_BACKENDS.microvm = () => {
  const paths = imagePaths(TEST_IMAGE_DIR);
  return {
    name: "microvm",
    unavailable: existsSync(paths.manifest)
      ? undefined
      : `no cell image in ${paths.dir}: run npm run test:microvm`,
    make: () =>
      createMicrovmBackend({
        paths,
        accel: "auto",
        allowTcg: true,
        memoryMiB: MICROVM.memoryMiB,
        brainDiskMiB: MICROVM.brainDiskMiB,
        onWarning: () => {},
      }),
    caps: {
      brainFileMiB: MICROVM.brainDiskMiB,
      brainMiB: MICROVM.brainDiskMiB,
      workspaceMiB: MICROVM.workspaceMiB,
      shmMiB: MICROVM.shmMiB,
      memoryMiB: MICROVM.memoryMiB,
      processes: MICROVM.processes,
      // The whole VM: its guest RAM is all the host ever gives it.
      cellMemoryMiB: MICROVM.memoryMiB,
    },
    brainHostPath: (userDir) => join(userDir, "brain.ext4"),
    startTimeoutMs: 120_000,
  };
};
