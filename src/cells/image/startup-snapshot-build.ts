// Makes the bundled runtime's startup snapshots (see ../startup-snapshot.ts): node runs a generated entry that
// evaluates runtime.cjs as if it were mounted in a cell, then writes the heap. Only the load is snapshotted;
// handlers, brains and native packages come after the snapshot is deserialized, in the cell.
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { RUNTIME_FILE } from "../../channel/index.js";
import { bwrapNodeOptions, DEFAULT_BWRAP_LIMITS } from "../backends/bwrap-args.js";
import {
  PACKAGE_IN_CELL,
  probeStartupSnapshot,
  SNAPSHOT_PROBE_ANSWER,
  snapshotNodeEnv,
  startupSnapshotName,
} from "../startup-snapshot.js";

/**
 * The NODE_OPTIONS values cells start node with unless configured otherwise: none (microVM and process cells)
 * and a default bwrap cell's heap limit. The build makes code caches for these.
 */
export function defaultCellNodeOptions(): string[] {
  return ["", bwrapNodeOptions(DEFAULT_BWRAP_LIMITS)];
}

/**
 * Those a startup snapshot is made for: a default bwrap cell's only. Process cells mount the package elsewhere,
 * and a microVM's node refuses a snapshot made on the host: node checks V8's cache version tag, which counts
 * the CPU's features, and QEMU's emulated CPU has others than the host's (also with -cpu max).
 */
export function snapshotNodeOptions(): string[] {
  return [bwrapNodeOptions(DEFAULT_BWRAP_LIMITS)];
}

export interface SnapshotResult {
  nodeOptions: string;
  ok: boolean;
  detail: string;
}

/**
 * One snapshot per NODE_OPTIONS value (exactly as cells get it) for the bundle in `bundleDir`, made with this
 * process's node. A snapshot that cannot be made is reported, not fatal: cells then start through the loader.
 */
export async function makeStartupSnapshots(
  packageRoot: string,
  bundleDir: string,
  nodeOptions: string[],
): Promise<SnapshotResult[]> {
  const dir = relative(packageRoot, bundleDir);
  const work = await mkdtemp(join(tmpdir(), "ironclaw-snapshot-"));
  const results: SnapshotResult[] = [];
  try {
    const entry = join(work, "snapshot-entry.cjs");
    await writeSnapshotEntry(bundleDir, join(PACKAGE_IN_CELL, dir), entry);
    for (const options of nodeOptions) {
      const blob = join(bundleDir, startupSnapshotName(options));
      try {
        // Lazily: on the host's CPU compiling a handler's functions when they first run costs less than
        // deserializing their bytecode with the rest (the microVM's snapshot, under emulation, is the other way).
        await run(process.execPath, ["--snapshot-blob", blob, "--build-snapshot", entry], options, work);
        // The same check a warden makes before its first cell starts from it.
        if (!(await probeStartupSnapshot(blob, process.execPath, options)))
          throw new Error("node would not start from it");
        results.push({ nodeOptions: options, ok: true, detail: "written" });
      } catch (error) {
        await rm(blob, { force: true });
        results.push({ nodeOptions: options, ok: false, detail: (error as Error).message });
      }
    }
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return results;
}

/** Writes the script `node --build-snapshot` runs for the runtime in `bundleDir`, mounted at `dirInCell`. */
export async function writeSnapshotEntry(bundleDir: string, dirInCell: string, file: string): Promise<void> {
  const source = (await readFile(join(bundleDir, RUNTIME_FILE), "utf8")).replace(/^#!.*/, "");
  await writeFile(file, snapshotEntry(source, dirInCell));
}

function run(file: string, args: string[], nodeOptions: string, cwd: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      {
        cwd,
        timeout: 120_000,
        maxBuffer: 4 * 1024 * 1024,
        env: snapshotNodeEnv(nodeOptions),
      },
      (error, _stdout, stderr) => {
        if (!error) return resolve();
        // The thrown error's own line, not the stack under it.
        const lines = stderr.trim().split("\n");
        reject(
          new Error(lines.find((l) => /^\w*Error\b/.test(l)) ?? (lines.slice(-3).join(" ") || error.message)),
        );
      },
    );
  });
}

/**
 * The script `node --build-snapshot` runs: the runtime's source inside a CommonJS wrapper whose paths are the
 * cell's, and a main function for the deserialized process. Loading may use node's built-in modules only, and
 * must not read what differs from cell to cell: the environment, or node's pool of random UUIDs, which a
 * snapshot would hand every cell alike. The build fails rather than snapshot a runtime that does.
 */
function snapshotEntry(runtimeSource: string, dirInCell: string): string {
  const file = join(dirInCell, RUNTIME_FILE);
  return `"use strict";
// Built with --no-lazy (the microVM's), this script, the runtime inside it included, was compiled whole before
// it ran, so the snapshot holds every function's bytecode. Lazy compilation is back on before node takes the
// snapshot and tags it with V8's flags, so cells start from it without the flag. Without it, this is a no-op.
require("node:v8").setFlagsFromString("--lazy");
const v8 = require("node:v8");
const crypto = require("node:crypto");
const { createRequire, isBuiltin } = require("node:module");
const { dirname, resolve } = require("node:path");
const FILE = ${JSON.stringify(file)};
const DIR = ${JSON.stringify(dirInCell)};
let external;
const cellRequire = (id) => {
  if (isBuiltin(id)) return require(id);
  if (!external) throw new Error("the runtime loads " + id + " while loading: a startup snapshot cannot hold it");
  return external(id);
};
const env = process.env;
const read = new Set();
process.env = new Proxy(env, { get(target, key) { if (typeof key === "string") read.add(key); return Reflect.get(target, key); } });
const randomUUID = crypto.randomUUID;
let uuids = 0;
crypto.randomUUID = (...args) => { uuids++; return randomUUID(...args); };
const runtime = { exports: {} };
(function (exports, require, module, __filename, __dirname) {${runtimeSource}
})(runtime.exports, cellRequire, runtime, FILE, DIR);
process.env = env;
crypto.randomUUID = randomUUID;
if (read.size > 0) throw new Error("the runtime reads " + [...read].join(", ") + " from the environment while loading");
if (uuids > 0) throw new Error("the runtime draws random UUIDs while loading");
if (typeof runtime.exports.runMain !== "function") throw new Error(FILE + " is not the inmate runtime");
v8.startupSnapshot.setDeserializeMainFunction(() => {
  // Node versions differ in what they put before the arguments after "--": the runtime's all start with "--".
  const args = process.argv.slice(1);
  while (args.length > 0 && !args[0].startsWith("--")) args.shift();
  if (args[0] === "--snapshot-probe") {
    process.stdout.write(${JSON.stringify(`${SNAPSHOT_PROBE_ANSWER}\n`)});
    return;
  }
  const at = process.execArgv.indexOf("--snapshot-blob");
  const from = at >= 0 ? dirname(resolve(process.execArgv[at + 1])) : "";
  if (from !== DIR) {
    process.stderr.write("irowclaw: this startup snapshot runs from " + DIR + ", not " + from + "\\n");
    process.exitCode = 70;
    return;
  }
  external = createRequire(FILE);
  if (process.env.IRONCLAW_TRACE === "1")
    process.stderr.write("irowclaw: runtime deserialized after " + (process.uptime() * 1000).toFixed(0) + " ms in node (startup snapshot)\\n");
  runtime.exports.runMain(args);
});
`;
}
