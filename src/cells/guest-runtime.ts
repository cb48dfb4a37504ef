import { type Dirent, existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { snapshotNodeArgs, usableStartupSnapshot } from "./startup-snapshot.js";

/** Where the IronClaw package (src/, dist/, node_modules/) lives on the host. */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * How a cell starts the inmate: `bundle` runs the one-file runtime `npm run build` writes to dist/cell
 * (production, benchmarks, the microVM image); `dist` the compiled modules one by one; `source` the
 * TypeScript through tsx, so tests exercise the code as it is, without a build.
 */
export interface GuestRuntime {
  kind: "bundle" | "dist" | "source";
  /** The package root on the host. */
  packageRoot: string;
  /**
   * What a sandbox binds of it (read-only, under the same names): the runtime and the packages it loads, never
   * the repository, its tests or the warden's configuration.
   */
  parts: string[];
  /** Node arguments that start irowclaw, for a package mounted at `rootInCell`. */
  nodeArgs(rootInCell: string): string[];
  /**
   * Node arguments that start the runtime from a startup snapshot instead, for a cell that mounts the package at
   * PACKAGE_IN_CELL and runs `nodePath` with `nodeOptions`; undefined when there is none this node can load.
   */
  startupSnapshot?(nodePath: string, nodeOptions: string): Promise<string[] | undefined>;
}

export function sourceRuntime(packageRoot = PACKAGE_ROOT): GuestRuntime {
  const loader = join(packageRoot, "node_modules/tsx/dist/loader.mjs");
  return {
    kind: "source",
    packageRoot,
    // tsx's loader lives in node_modules, which the sources import from anyway.
    parts: ["package.json", "src", "node_modules"],
    nodeArgs: (root) => [
      "--import",
      `file://${join(root, relative(packageRoot, loader))}`,
      join(root, "src/inmate/irowclaw.ts"),
    ],
  };
}

export function distRuntime(packageRoot = PACKAGE_ROOT): GuestRuntime {
  return {
    kind: "dist",
    packageRoot,
    parts: ["package.json", "dist", "node_modules"],
    nodeArgs: (root) => [join(root, "dist/inmate/irowclaw.js")],
  };
}

/** Package-relative, as guest-bundle.ts writes them (kept here so the warden never loads the bundler). */
const BUNDLE_DIR = "dist/cell";
const BUNDLE_ENTRY = `${BUNDLE_DIR}/irowclaw.cjs`;

/**
 * The bundled runtime: a cell binds only dist/cell and the packages the bundle still loads from node_modules
 * (native SQLite, sqlite-vec, the word-vector JSON), as its bundle.json lists them; package.json stays, for
 * the package's identity. Cells that mount it at PACKAGE_IN_CELL start from its startup snapshot where the build
 * made one their node loads (`snapshots: false` never does). Throws when the bundle has not been built.
 */
export function bundleRuntime(
  packageRoot = PACKAGE_ROOT,
  dir = BUNDLE_DIR,
  options: { snapshots?: boolean } = {},
): GuestRuntime {
  const manifest = join(packageRoot, dir, "bundle.json");
  if (!existsSync(manifest))
    throw new Error(`no inmate bundle in ${join(packageRoot, dir)}: run npm run build`);
  const { packages } = JSON.parse(readFileSync(manifest, "utf8")) as { packages?: unknown };
  if (!Array.isArray(packages) || !packages.every((p) => typeof p === "string" && !p.startsWith("/"))) {
    throw new Error(`${manifest}: packages must list package-relative directories: run npm run build again`);
  }
  return {
    kind: "bundle",
    packageRoot,
    parts: ["package.json", dir, ...packages],
    nodeArgs: (root) => [join(root, dir, "irowclaw.cjs")],
    ...(options.snapshots === false
      ? {}
      : {
          async startupSnapshot(nodePath: string, nodeOptions: string) {
            const blob = await usableStartupSnapshot(packageRoot, dir, nodePath, nodeOptions);
            return blob === undefined ? undefined : snapshotNodeArgs(blob);
          },
        }),
  };
}

/**
 * The runtime that matches the running host code. When the host itself runs from the sources (tsx): the bundle
 * when it was built after the last change to any source (it is built from them), so cells start in a fraction
 * of the time and the runtime they run is the one that ships; else the sources, so a stale build never answers
 * for edited code (`IRONCLAW_INMATE=source` always runs them). When the host runs compiled: the bundle when it is
 * as new as the compiled modules, else those modules.
 */
export function defaultRuntime(packageRoot = PACKAGE_ROOT): GuestRuntime {
  const bundled = mtimeOf(join(packageRoot, BUNDLE_ENTRY));
  if (import.meta.url.endsWith(".ts")) {
    if (process.env.IRONCLAW_INMATE === "source" || bundled === undefined) return sourceRuntime(packageRoot);
    const newest = newestSourceMtime(join(packageRoot, "src"));
    return newest !== undefined && bundled >= newest
      ? bundleRuntime(packageRoot)
      : sourceRuntime(packageRoot);
  }
  const compiled = mtimeOf(join(packageRoot, "dist/inmate/irowclaw.js"));
  if (compiled === undefined) return sourceRuntime(packageRoot);
  // A bundle older than the compiled modules was left behind by a build that stopped after tsc.
  return bundled !== undefined && bundled >= compiled ? bundleRuntime(packageRoot) : distRuntime(packageRoot);
}

/** The latest modification time of a TypeScript source under `dir` (tests aside), or undefined when none is. */
export function newestSourceMtime(dir: string): number | undefined {
  let newest: number | undefined;
  let entries: Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    const path = join(dir, entry.name);
    let mtime: number | undefined;
    if (entry.isDirectory()) mtime = newestSourceMtime(path);
    else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".test.ts")) mtime = mtimeOf(path);
    if (mtime !== undefined && (newest === undefined || mtime > newest)) newest = mtime;
  }
  return newest;
}

function mtimeOf(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}
