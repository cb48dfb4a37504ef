import { readdirSync, readFileSync } from "node:fs";
import type { CellHandle } from "../../src/cells/index.js";

/** What the suite knows about the host and the two cells, for the attempts to aim at. */
export interface EscapeScene {
  backend: string;
  /** The cell that tries to escape (user "inmate"). */
  cell: () => CellHandle;
  /** Another user's cell, which must keep serving throughout. */
  bystander: () => CellHandle;
  /** A host file outside every brain, and its secret text. */
  secretFile: string;
  secretText: string;
  /** The bystander's brain directory on the host (directory backends) or disk image (images). */
  bystanderBrainHostPath: string;
  /** The inmate's brain directory on the host, where it is one (to clean up after a checked quota stopped it). */
  inmateBrainHostPath: string;
  /** A marker the bystander's brain holds in a file named after it. */
  bystanderMarker: string;
  /** Host paths a cell must never see: the package root, IRONCLAW_HOME of the test, the users' directory. */
  hostPaths: string[];
  caps: EscapeCaps;
}

/** The limits the backend promises, in MiB (undefined: this host cannot enforce it, and says so). */
export interface EscapeCaps {
  brainFileMiB: number;
  brainMiB: number;
  workspaceMiB: number;
  shmMiB: number;
  /** What one process may write (its data limit), whatever else bounds the cell. */
  memoryMiB: number;
  processes: number;
  cellMemoryMiB: number | undefined;
}

export interface AttemptResult {
  contained: boolean;
  evidence: string;
  /**
   * The positive control: the same probe, aimed where the leak is possible (a file the cell may read, a
   * process the tool started itself, the host side of a socket), detected it. Without this, "contained"
   * could mean "the probe never ran".
   */
  controlDetected: boolean;
  control: string;
}

export interface EscapeAttempt {
  name: string;
  /** Unsafe to let loose on a host with no isolation: writes to /usr, fork bombs, memory or disk floods. */
  harmsUnisolatedHost: boolean;
  /** Without isolation (the process backend) the leak is real, and the suite checks that it is seen. */
  leaksWithoutIsolation: boolean;
  /** Host memory and process counts are recorded around it. */
  exhausts?: boolean;
  run(scene: EscapeScene): Promise<AttemptResult>;
}

/** Reversed text: probes carry markers reversed, so the probe's own command line never matches itself. */
export function reversed(text: string): string {
  return [...text].reverse().join("");
}

/** A shell snippet that sets $1 to the reversed argument turned back, without `rev` (busybox may lack it). */
export function unreverse(variable: string, text: string): string {
  return `${variable}=$(node -e 'console.log(process.argv[1].split("").reverse().join(""))' '${reversed(text)}')`;
}

/** The host as the kernel reports it: available memory and the number of processes. */
export interface HostSnapshot {
  memAvailableMiB: number;
  processes: number;
}

export function snapshotHost(): HostSnapshot {
  const meminfo = readFileSync("/proc/meminfo", "utf8");
  const kb = Number(/^MemAvailable:\s+(\d+) kB/m.exec(meminfo)?.[1] ?? "0");
  const processes = readdirSync("/proc").filter((name) => /^\d+$/.test(name)).length;
  return { memAvailableMiB: Math.round(kb / 1024), processes };
}

export function describeSnapshots(before: HostSnapshot, after: HostSnapshot, low: HostSnapshot): string {
  return (
    `host MemAvailable ${before.memAvailableMiB} → ${after.memAvailableMiB} MiB (lowest ${low.memAvailableMiB}), ` +
    `processes ${before.processes} → ${after.processes} (highest ${low.processes})`
  );
}
