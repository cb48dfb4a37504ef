import type { JobMessage } from "../../contracts/index.js";

/**
 * The worktree paths an order's agent may change (seed 000 §2 `"tool_policy": { "fs_allowlist": ["./"] }`),
 * as a test on slash-separated worktree-relative paths; undefined when the order names none (the whole
 * worktree). An entry is a path or a glob (`*` within one name, `**` across folders) relative to the worktree;
 * one that names a folder covers everything below it, so `./` and `./*` are the whole tree.
 */
export function fsAllowlistOf(job: JobMessage): ((path: string) => boolean) | undefined {
  const entries = job.tool_policy.fs_allowlist ?? job.constraints.tool_policy?.fs_allowlist;
  if (entries === undefined) return undefined;
  const patterns = entries.map(patternOf);
  return (path) => {
    const parts = path.split("/");
    // The path itself or any folder above it, e.g. src/a/b.ts tests "src", "src/a" and "src/a/b.ts".
    const candidates = parts.map((_, i) => parts.slice(0, i + 1).join("/"));
    return patterns.some((pattern) => pattern === "" || candidates.some((c) => pattern.test(c)));
  };
}

function patternOf(entry: string): RegExp | "" {
  const rel = entry.replace(/^\.\/?/, "").replace(/\/+$/, "");
  if (rel === "") return "";
  const source = rel
    .split(/(\*\*|\*)/)
    .map((piece) =>
      piece === "**" ? ".*" : piece === "*" ? "[^/]*" : piece.replace(/[.+?^${}()|[\]\\]/g, "\\$&"),
    )
    .join("");
  return new RegExp(`^${source}$`);
}
