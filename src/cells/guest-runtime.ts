import { existsSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** Where the IronClaw package (src/, dist/, node_modules/) lives on the host. */
export const PACKAGE_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "../..");

/**
 * How a cell starts the inmate: `dist` runs the compiled runtime (production, benchmarks, the microVM image);
 * `source` runs the TypeScript through tsx, so tests exercise the code as it is, without a build.
 */
export interface GuestRuntime {
  kind: "dist" | "source";
  /** The package root on the host. */
  packageRoot: string;
  /**
   * What a sandbox binds of it (read-only, under the same names): the runtime and the packages it loads, never
   * the repository, its tests or the warden's configuration.
   */
  parts: string[];
  /** Node arguments that start irowclaw, for a package mounted at `rootInCell`. */
  nodeArgs(rootInCell: string): string[];
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
      join(root, "src/cells/guest/irowclaw.ts"),
    ],
  };
}

export function distRuntime(packageRoot = PACKAGE_ROOT): GuestRuntime {
  return {
    kind: "dist",
    packageRoot,
    parts: ["package.json", "dist", "node_modules"],
    nodeArgs: (root) => [join(root, "dist/cells/guest/irowclaw.js")],
  };
}

/**
 * The runtime that matches the running host code: the sources when the host itself runs from them (tsx), so a
 * stale dist/ never answers for edited code; otherwise the compiled runtime when it has been built.
 */
export function defaultRuntime(packageRoot = PACKAGE_ROOT): GuestRuntime {
  if (import.meta.url.endsWith(".ts")) return sourceRuntime(packageRoot);
  return existsSync(join(packageRoot, "dist/cells/guest/irowclaw.js"))
    ? distRuntime(packageRoot)
    : sourceRuntime(packageRoot);
}
