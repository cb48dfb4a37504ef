import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { canonicalBytes } from "../../core/index.js";
import type { RewrittenCommits } from "./history-rewrite.js";

/** One redaction of a history: when, why and how much; never the words it removed. */
export interface RedactionRecord {
  at: string;
  cause: string;
  commits_rewritten: number;
  commits_redacted: number;
}

/**
 * The sidecar beside a history's nodes (redactions.json, canonical JSON). Nodes are immutable and pin the
 * commit they were made with; once a forget rewrote the history, that commit is gone, so this says where each
 * pinned commit went (`commits`: original sha → current sha) and which nodes' trees lost text (`redacted`:
 * original shas), whose artifact_hash therefore no longer matches the tree the history holds for them.
 */
export interface Redactions {
  commits: Record<string, string>;
  redacted: string[];
  redactions: RedactionRecord[];
}

export function readRedactions(file: string): Redactions {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT")
      return { commits: {}, redacted: [], redactions: [] };
    throw error;
  }
  return JSON.parse(text) as Redactions;
}

/** The sidecar after one more rewrite: a node's original commit is followed through every rewrite since. */
export function addRedaction(
  file: string,
  rewritten: RewrittenCommits,
  record: Omit<RedactionRecord, "commits_rewritten" | "commits_redacted">,
): Redactions {
  const before = readRedactions(file);
  const originalOf = new Map(Object.entries(before.commits).map(([original, now]) => [now, original]));
  const commits = { ...before.commits };
  const redacted = new Set(before.redacted);
  for (const [old, now] of rewritten.moved) {
    const original = originalOf.get(old) ?? old;
    commits[original] = now;
    if (rewritten.redacted.has(old)) redacted.add(original);
  }
  const after: Redactions = {
    commits,
    redacted: [...redacted].sort(),
    redactions: [
      ...before.redactions,
      { ...record, commits_rewritten: rewritten.moved.size, commits_redacted: rewritten.redacted.size },
    ],
  };
  // Written beside, then renamed: a reader sees the old mapping or the new, never half of one.
  const temp = `${file}.${process.pid}.tmp`;
  writeFileSync(temp, canonicalBytes(after), { mode: 0o600 });
  renameSync(temp, file);
  return after;
}
