import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ironclawWorkflowRef } from "../../attest/index.js";

/** A build that is not a git checkout (a packed release) names no commit: forty zeros say "unknown". */
const UNKNOWN_COMMIT = "0".repeat(40);

/**
 * The `workflow_ref` of the IronClaw this warden runs: its package name and version, and the commit of the
 * checkout it runs from. Read once at start; a certificate must not pay for a git call.
 */
export function runningWorkflowRef(from: string = fileURLToPath(import.meta.url)): string {
  const root = packageRoot(dirname(from));
  if (root === undefined) return ironclawWorkflowRef({ name: "ironclaw", version: "0.0.0" }, UNKNOWN_COMMIT);
  const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    name: string;
    version: string;
  };
  return ironclawWorkflowRef(pkg, checkoutCommit(root));
}

function packageRoot(dir: string): string | undefined {
  for (let at = dir; ; at = dirname(at)) {
    if (existsSync(join(at, "package.json"))) return at;
    if (dirname(at) === at) return undefined;
  }
}

function checkoutCommit(root: string): string {
  try {
    const out = execFileSync("git", ["-C", root, "rev-parse", "HEAD"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    return /^[0-9a-f]{40}$/.test(out) ? out : UNKNOWN_COMMIT;
  } catch {
    return UNKNOWN_COMMIT;
  }
}
