// The bundled inmate's startup snapshots: a V8 heap with the runtime already compiled and evaluated (its
// protocol contracts built), which node deserializes instead of reading, compiling and running runtime.cjs.
// `npm run build` makes one per node version and NODE_OPTIONS value (image/startup-snapshot-build.ts). V8 ends
// the process on a snapshot made by another V8 or with other flags, so a cell starts from one only after the
// host has seen this node, with these flags, load it; any doubt falls back to the loader and its code cache.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync } from "node:fs";
import { join } from "node:path";

/**
 * Where bwrap cells and the microVM image mount the package. A snapshot's heap holds the paths the runtime
 * worked out while loading, so snapshots are made for this location and started only there.
 */
export const PACKAGE_IN_CELL = "/opt/ironclaw";
/** What the deserialized runtime answers to `--snapshot-probe` (and nothing else) on stdout. */
export const SNAPSHOT_PROBE_ANSWER = "irowclaw startup snapshot: loaded";

/** The blob's file name in the bundle directory: one per node version, architecture and NODE_OPTIONS value. */
export function startupSnapshotName(
  nodeOptions: string,
  version = process.version,
  arch = process.arch,
): string {
  const key = JSON.stringify([version, arch, nodeOptions, PACKAGE_IN_CELL]);
  return `runtime.${createHash("sha256").update(key).digest("hex").slice(0, 16)}.blob`;
}

/** Node's arguments that start the runtime from `blob` (package-relative), mounted at PACKAGE_IN_CELL. */
export function snapshotNodeArgs(blob: string): string[] {
  // "--" ends node's own options: the runtime's follow it.
  return ["--snapshot-blob", join(PACKAGE_IN_CELL, blob), "--"];
}

const probes = new Map<string, Promise<boolean>>();

/**
 * The package-relative blob a cell running `nodePath` with `nodeOptions` may start from, or undefined. The
 * first ask per blob, node and flags runs that node once on the host (~0.1 s) and remembers the outcome for
 * the process's lifetime.
 */
export async function usableStartupSnapshot(
  packageRoot: string,
  bundleDir: string,
  nodePath: string,
  nodeOptions: string,
): Promise<string | undefined> {
  // Named for the warden's node: a cell's other node may differ in version, which the probe would reject anyway.
  const blob = join(bundleDir, startupSnapshotName(nodeOptions));
  const file = join(packageRoot, blob);
  if (!existsSync(file)) return undefined;
  const key = JSON.stringify([file, nodePath, nodeOptions]);
  let probe = probes.get(key);
  if (!probe) {
    probe = probeStartupSnapshot(file, nodePath, nodeOptions);
    probes.set(key, probe);
  }
  return (await probe) ? blob : undefined;
}

/** Whether `nodePath` with `nodeOptions` starts from the snapshot in `file` (asked every time; V8 decides). */
export function probeStartupSnapshot(file: string, nodePath: string, nodeOptions: string): Promise<boolean> {
  return new Promise((resolve) => {
    execFile(
      nodePath,
      ["--snapshot-blob", file, "--", "--snapshot-probe"],
      { timeout: 10_000, env: snapshotNodeEnv(nodeOptions) },
      (error, stdout) => resolve(!error && stdout.trim() === SNAPSHOT_PROBE_ANSWER),
    );
  });
}

/** The environment node makes or probes a snapshot in: PATH, and the flags exactly as a cell gets them. */
export function snapshotNodeEnv(nodeOptions: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", ...(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {}) };
}
