import { spawnSync } from "node:child_process";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { sourcesNeeded } from "./cli-entry.js";

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SRC = join(REPO_ROOT, "src");
const DIST = join(REPO_ROOT, "dist");
/** Inside the package, so the bundle's imports of packages resolve from its node_modules. */
const OUT_DIR = join(REPO_ROOT, "node_modules/.cache/ironclaw-test-scripts");
const BUNDLER = fileURLToPath(new URL("./bundle-script.mjs", import.meta.url));

const built = new Map<string, string[]>();

/**
 * What follows `node` to run a test's TypeScript script as a child process. When dist/ was built from the sources
 * as they are now: the script and the test modules it imports, bundled into one file (made once per script and
 * content), which loads the product from dist/ — a child started through tsx spends seconds of CPU transforming
 * the product's modules, and the chaos and crash tests start dozens. Else (or with IRONCLAW_TEST_CLI=src) the
 * script through tsx, with a line saying why.
 */
export function scriptEntry(script: string): string[] {
  const known = built.get(script);
  if (known) return known;
  const sources = ["--import", "tsx", script];
  const stale = sourcesNeeded();
  if (stale) {
    if (process.env.IRONCLAW_TEST_CLI !== "src")
      console.warn(
        `${basename(script)} runs through tsx (slower): dist/ is older than ${stale}; npm run build refreshes it`,
      );
    built.set(script, sources);
    return sources;
  }
  // esbuild's synchronous API takes no plugins: the bundle is made by a child running the asynchronous one.
  const run = spawnSync(process.execPath, [BUNDLER, script, OUT_DIR, SRC, DIST], { encoding: "utf8" });
  if (run.status !== 0) throw new Error(`bundling ${script} failed: ${run.stderr || run.error?.message}`);
  const out = run.stdout.trim();
  const entry = [out];
  built.set(script, entry);
  return entry;
}
