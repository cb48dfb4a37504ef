// The bundled inmate's entry (dist/cell/irowclaw.cjs). It compiles the one-file runtime beside it with the V8
// code cache made at build time, so a cell neither parses nor compiles the runtime again: on Node 20 no
// built-in cache covers a cell, whose package is read-only and whose /tmp is new at every start.
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Script } from "node:vm";
// The one file of channel/ the loader needs, imported by name: its bundle must stay a few hundred bytes, not
// carry the protocol and its schemas.
import { RUNTIME_FILE, WRITE_CACHE_ENV } from "../channel/cell-start.js";

/**
 * V8 accepts a code cache only from the same V8 with the same flags (a heap limit counts), so each node
 * version and flag set has a cache of its own; one made for other flags is never even read.
 */
export function compileCacheFile(dir: string, env: NodeJS.ProcessEnv = process.env): string {
  const flags = JSON.stringify([process.version, process.arch, process.execArgv, env.NODE_OPTIONS ?? ""]);
  return join(dir, `runtime.${createHash("sha256").update(flags).digest("hex").slice(0, 16)}.cache`);
}

interface RuntimeExports {
  runMain(argv: string[]): void;
}

export function startBundledRuntime(dir: string): void {
  const file = join(dir, RUNTIME_FILE);
  const cacheFile = compileCacheFile(dir);
  const cachedData = readOptional(cacheFile);
  // The entry's #! line, which esbuild keeps, is no statement inside the function the runtime is wrapped in.
  const source = readFileSync(file, "utf8").replace(/^#!.*/, "");
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(cachedData ? { cachedData } : {}),
  });
  if (cachedData && script.cachedDataRejected) {
    process.stderr.write(
      `irowclaw: the compile cache ${cacheFile} does not fit this node; compiling instead\n`,
    );
  }
  if (process.env[WRITE_CACHE_ENV] === "1") {
    // After the run, so the cache also holds every function the run compiled, not only the top level.
    process.once("exit", () => {
      try {
        writeFileSync(cacheFile, script.createCachedData());
      } catch (error) {
        process.stderr.write(`irowclaw: could not write ${cacheFile}: ${(error as Error).message}\n`);
      }
    });
  }
  const trace = process.env.IRONCLAW_TRACE === "1" ? (what: string) => stamp(what, cachedData) : () => {};
  trace("compiled");
  const module = { exports: {} as Partial<RuntimeExports> };
  const run = script.runInThisContext() as (...args: unknown[]) => void;
  run(module.exports, createRequire(file), module, file, dir);
  trace("evaluated");
  if (typeof module.exports.runMain !== "function") throw new Error(`${file} is not the inmate runtime`);
  module.exports.runMain(process.argv.slice(2));
}

/** A traced microVM boot (ironclaw.trace=1) says where node's start-up time goes. */
function stamp(what: string, cache: Buffer | undefined): void {
  const ms = (process.uptime() * 1000).toFixed(0);
  process.stderr.write(
    `irowclaw: runtime ${what} after ${ms} ms in node (${cache ? "code cache" : "no code cache"})\n`,
  );
}

function readOptional(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

// argv[1] is this file when node runs it; the runtime sits beside it.
const self = process.argv[1];
if (self !== undefined && /irowclaw\.cjs$/.test(self)) startBundledRuntime(dirname(self));
