import { type BrainTree, sortTree } from "./brain-tree.js";
import { type HistoryRepo, historyGit } from "./history-git.js";

/** What changed between two states of a brain, by path, with git's unified diff of the same. */
export interface TreeDiff {
  from: string;
  to: string;
  added: string[];
  changed: string[];
  removed: string[];
  patch: string;
}

/** Every commit of the history by sha: the cause (its subject line) and its time (RFC 3339, UTC). */
export async function readCommitLog(repo: HistoryRepo): Promise<Map<string, { cause: string; at: string }>> {
  const out = (await historyGit(repo, ["log", "--format=%H%x00%aI%x00%s%x1e", "HEAD"])).toString("utf8");
  const commits = new Map<string, { cause: string; at: string }>();
  for (const record of out.split("\x1e")) {
    const [sha, at, cause] = record.trim().split("\0");
    if (sha && at) commits.set(sha, { cause: cause ?? "", at: new Date(at).toISOString() });
  }
  return commits;
}

/**
 * The paths each commit of the history changed against its parent (a first commit: every path it added), by
 * sha, from one `git log`: a listing of many nodes does not pay one diff per node.
 */
export async function readChangedPaths(repo: HistoryRepo): Promise<Map<string, string[]>> {
  const out = (
    await historyGit(repo, ["log", "--no-renames", "--name-only", "-z", "--format=%x1e%H", "HEAD"])
  ).toString("utf8");
  const changed = new Map<string, string[]>();
  // Each record: the sha, NUL, then (after a newline) the paths, each ended by NUL; a path may hold a newline.
  for (const record of out.split("\x1e")) {
    const [sha = "", rest = ""] = record.split(/\0\n?(.*)/s);
    if (sha !== "")
      changed.set(
        sha,
        rest.split("\0").filter((path) => path !== ""),
      );
  }
  return changed;
}

/** The files of a commit's tree and their bytes: one ls-tree and one cat-file, whatever the tree's size. */
export async function readTreeAt(repo: HistoryRepo, commit: string): Promise<BrainTree> {
  const listing = (await historyGit(repo, ["ls-tree", "-r", "-z", commit])).toString("utf8");
  const blobs: Array<{ oid: string; path: string }> = [];
  for (const line of listing.split("\0")) {
    const tab = line.indexOf("\t");
    if (tab < 0) continue;
    const [, type, oid] = line.slice(0, tab).split(" ");
    if (type === "blob" && oid) blobs.push({ oid, path: line.slice(tab + 1) });
  }
  if (blobs.length === 0) return new Map();
  const batch = await historyGit(repo, ["cat-file", "--batch"], {
    input: `${blobs.map((b) => b.oid).join("\n")}\n`,
  });
  const files: Array<[string, Buffer]> = [];
  let at = 0;
  for (const blob of blobs) {
    const headerEnd = batch.indexOf(0x0a, at);
    const size = Number(batch.subarray(at, headerEnd).toString("utf8").split(" ")[2]);
    files.push([blob.path, Buffer.from(batch.subarray(headerEnd + 1, headerEnd + 1 + size))]);
    at = headerEnd + 1 + size + 1;
  }
  return sortTree(files);
}

const DIFF_ARGS = ["diff", "--no-renames", "--no-ext-diff", "--no-textconv", "--no-color"];

export async function diffCommits(repo: HistoryRepo, from: string, to: string): Promise<TreeDiff> {
  const status = (await historyGit(repo, [...DIFF_ARGS, "--name-status", "-z", from, to])).toString("utf8");
  const result: TreeDiff = { from, to, added: [], changed: [], removed: [], patch: "" };
  const fields = status.split("\0");
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const kind = fields[i];
    const path = fields[i + 1] as string;
    if (kind === "A") result.added.push(path);
    else if (kind === "D") result.removed.push(path);
    else result.changed.push(path);
  }
  result.patch = (await historyGit(repo, [...DIFF_ARGS, from, to])).toString("utf8");
  return result;
}
