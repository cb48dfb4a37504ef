import { type HistoryRepo, historyGit, historyGitText } from "./history-git.js";
import { readTreeAt } from "./history-read.js";

/** A markdown file's new text for a history without some words; the same text when it keeps them. */
export type HistoryRewrite = (path: string, markdown: string) => string;

/** What a rewrite of the history's commits did: old commit → new commit, and which of them lost text. */
export interface RewrittenCommits {
  /** Every commit that was replaced, by its old sha (its tree changed, or a parent's did). */
  moved: Map<string, string>;
  /** The old shas of the commits whose own tree lost text. */
  redacted: Set<string>;
  /** HEAD before, and the commit it is to move to (the same when nothing moved). */
  head: { from: string; to: string };
}

/**
 * Rewrites every commit reachable from HEAD, oldest first, with each text file put through `rewrite`: a commit
 * whose files and parents are unchanged keeps its sha; any other is made again (same message, same dates) on
 * its rewritten parents. Nothing is moved or pruned here: the caller records where the commits went, then
 * moves HEAD (`moveHead`) and prunes. The repository's index is used as scratch space.
 */
export async function rewriteCommits(repo: HistoryRepo, rewrite: HistoryRewrite): Promise<RewrittenCommits> {
  const moved = new Map<string, string>();
  const redacted = new Set<string>();
  const order = await historyGitText(repo, ["rev-list", "--reverse", "--topo-order", "--parents", "HEAD"]);
  let oldHead = "";
  let newHead = "";
  for (const line of order.split("\n").filter(Boolean)) {
    const [commit, ...parents] = line.split(" ") as [string, ...string[]];
    const newParents = parents.map((p) => moved.get(p) ?? p);
    const edits = await editsOf(repo, commit, rewrite);
    oldHead = commit;
    newHead = commit;
    if (edits.length === 0 && newParents.every((p, i) => p === parents[i])) continue;
    const tree = edits.length === 0 ? `${commit}^{tree}` : await editedTree(repo, commit, edits);
    newHead = await remadeCommit(repo, commit, tree, newParents);
    moved.set(commit, newHead);
    if (edits.length > 0) redacted.add(commit);
  }
  return { moved, redacted, head: { from: oldHead, to: newHead } };
}

/** Points HEAD at the rewritten head (only if it is still where the rewrite started) and the index with it. */
export async function moveHead(repo: HistoryRepo, head: { from: string; to: string }): Promise<void> {
  await historyGit(repo, ["update-ref", "HEAD", head.to, head.from]);
  await historyGit(repo, ["read-tree", "HEAD"]);
}

interface Edit {
  path: string;
  mode: string;
  content: Buffer;
}

/** The files of `commit` whose text `rewrite` changes, with their new bytes. Files that are not UTF-8 stay. */
async function editsOf(repo: HistoryRepo, commit: string, rewrite: HistoryRewrite): Promise<Edit[]> {
  const modes = await modesAt(repo, commit);
  const edits: Edit[] = [];
  for (const [path, bytes] of await readTreeAt(repo, commit)) {
    const text = bytes.toString("utf8");
    if (!Buffer.from(text, "utf8").equals(bytes)) continue;
    const next = rewrite(path, text);
    if (next !== text) edits.push({ path, mode: modes.get(path) ?? "100644", content: Buffer.from(next) });
  }
  return edits;
}

async function modesAt(repo: HistoryRepo, commit: string): Promise<Map<string, string>> {
  const listing = (await historyGit(repo, ["ls-tree", "-r", "-z", commit])).toString("utf8");
  const modes = new Map<string, string>();
  for (const line of listing.split("\0")) {
    const tab = line.indexOf("\t");
    if (tab >= 0) modes.set(line.slice(tab + 1), line.slice(0, tab).split(" ")[0] as string);
  }
  return modes;
}

/** `commit`'s tree with the edited files replaced: built in the index, written as a new tree object. */
async function editedTree(repo: HistoryRepo, commit: string, edits: readonly Edit[]): Promise<string> {
  await historyGit(repo, ["read-tree", commit]);
  let info = "";
  for (const edit of edits) {
    const oid = await historyGitText(repo, ["hash-object", "-w", "--stdin"], { input: edit.content });
    info += `${edit.mode} ${oid}\t${edit.path}\0`;
  }
  await historyGit(repo, ["update-index", "-z", "--index-info"], { input: info });
  return historyGitText(repo, ["write-tree"]);
}

/** A commit like `commit` (message, author and committer time) on another tree and parents. */
async function remadeCommit(
  repo: HistoryRepo,
  commit: string,
  tree: string,
  parents: readonly string[],
): Promise<string> {
  const raw = (await historyGit(repo, ["cat-file", "commit", commit])).toString("utf8");
  const split = raw.indexOf("\n\n");
  const header = raw.slice(0, split);
  const message = raw.slice(split + 2);
  const author = /^author .* (\d+) ([+-]\d{4})$/m.exec(header);
  const date = author ? `@${author[1]} ${author[2]}` : undefined;
  const args = ["commit-tree", tree, ...parents.flatMap((p) => ["-p", p]), "-F", "-"];
  return historyGitText(repo, args, { input: message, ...(date ? { date } : {}) });
}
