import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));
const SRC = join(REPO_ROOT, "src");
const DIST = join(REPO_ROOT, "dist");

/** The first source file whose compiled twin in dist/ is missing or older than it, or undefined when none is. */
export function staleCompiledSource(src = SRC, dist = DIST): string | undefined {
  for (const entry of readdirSync(src, { withFileTypes: true })) {
    const from = join(src, entry.name);
    if (entry.isDirectory()) {
      const stale = staleCompiledSource(from, join(dist, entry.name));
      if (stale) return stale;
      continue;
    }
    if (!entry.name.endsWith(".ts") || entry.name.endsWith(".test.ts") || entry.name.endsWith(".d.ts"))
      continue;
    const to = join(dist, `${entry.name.slice(0, -3)}.js`);
    if (!existsSync(to) || statSync(to).mtimeMs < statSync(from).mtimeMs) return from;
  }
  return undefined;
}

let whySources: { reason: string | undefined } | undefined;

/**
 * Why children of the tests must run from the sources through tsx, or undefined when the build in dist/ can
 * answer for them: IRONCLAW_TEST_CLI=src, or the first source newer than its compiled twin. Walked once a process.
 */
export function sourcesNeeded(): string | undefined {
  whySources ??= {
    reason: process.env.IRONCLAW_TEST_CLI === "src" ? "IRONCLAW_TEST_CLI=src" : staleCompiledSource(),
  };
  return whySources.reason;
}

let chosen: string[] | undefined;

/**
 * What follows `node` to run `ironclaw` as a child process: the compiled CLI in dist/ (what bin/ironclaw.js runs,
 * built by npm install) when it was built from the sources as they are now, else the TypeScript sources through
 * tsx. A CLI started through tsx spends ~4 s of CPU transforming and loading its modules where the compiled one
 * spends ~1.5 s, and the suites start some hundred of them. `IRONCLAW_TEST_CLI=src` always runs the sources.
 */
export function cliEntry(): string[] {
  if (chosen) return chosen;
  const why = sourcesNeeded();
  if (why === undefined) chosen = [join(DIST, "cli/main.js")];
  else {
    if (process.env.IRONCLAW_TEST_CLI !== "src")
      console.warn(
        `spawned ironclaw runs from the sources through tsx (slower): dist/ is older than ${why}; npm run build refreshes it`,
      );
    chosen = ["--import", "tsx", join(SRC, "cli/main.ts")];
  }
  return chosen;
}
