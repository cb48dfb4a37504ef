import { mkdir, rm } from "node:fs/promises";
import { join } from "node:path";
import { boundedScratch, type ScratchCap } from "../cells/index.js";
import { GitError, hostGit } from "../git/host-git.js";
import { recordsMovedCommit } from "./order-records.js";

/** The theater's mainline: the branch integration promotes orders into. */
export const MAIN_REF = "refs/heads/main";

/**
 * An order's commit merged onto one main commit, or the paths that conflicted. The merged tree is known first;
 * `commit()` makes the merge commit (no ref names it yet), so that the gate need not wait for it.
 */
export type PreparedMerge =
  | { kind: "merged"; tree: string; base: string; commit: () => Promise<string> }
  | { kind: "conflict"; paths: string[]; detail: string; base: string };

/** The commit a ref names (`git rev-parse --verify <ref>^{commit}`), or undefined when there is none. */
export async function resolveCommit(repo: string, ref: string): Promise<string | undefined> {
  const run = await hostGit(repo, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], {
    allowFailure: true,
  });
  return run.code === 0 ? run.stdout.trim() : undefined;
}

export async function isAncestor(repo: string, ancestor: string, of: string): Promise<boolean> {
  const run = await hostGit(repo, ["merge-base", "--is-ancestor", ancestor, of], { allowFailure: true });
  return run.code === 0;
}

/**
 * Merges the order's branch tip `tip` onto the main commit `base` in git's objects alone (`merge-tree
 * --write-tree`, the same ort merge `git merge` makes, then `commit-tree` with both parents: main gets exactly one
 * merge commit per order, as `--no-ff` gives). No checkout, no worktree to add, remove and prune, and nothing of
 * the order's tree is written anywhere: main, its checkout and the order's worktree are not touched. On a
 * conflict the paths are those git names as conflicted, each once.
 */
export async function prepareMerge(
  repo: string,
  base: string,
  tip: string,
  branch: string,
  orderId: string,
): Promise<PreparedMerge> {
  const product = await recordsMovedCommit(repo, tip, base, orderId);
  const merged = await hostGit(repo, ["merge-tree", "--write-tree", "--name-only", "-z", base, product], {
    allowFailure: true,
    timeoutMs: 300_000,
  });
  // -z: the tree, the conflicted paths, an empty field, then the messages as <count> <paths...> <type> <text>.
  const fields = merged.stdout.split("\0");
  if (merged.code === 1) {
    const end = fields.indexOf("", 1);
    const paths = fields.slice(1, end === -1 ? undefined : end);
    return { kind: "conflict", paths, detail: mergeMessages(fields.slice(end + 1)), base };
  }
  if (merged.code !== 0) throw new GitError(["merge-tree", base, product], merged.code, merged.stderr);
  const tree = fields[0]?.trim() ?? "";
  const message = `Integrate order ${orderId} (${branch})`;
  const commit = async () =>
    (await hostGit(repo, ["commit-tree", tree, "-p", base, "-p", product, "-m", message])).stdout.trim();
  return { kind: "merged", tree, base, commit };
}

/** The last lines of merge-tree's messages (what `git merge` prints), for the failure's detail. */
function mergeMessages(fields: string[]): string {
  const lines: string[] = [];
  for (let i = 0; i < fields.length; ) {
    const count = Number(fields[i]);
    if (!Number.isInteger(count) || count < 0) break;
    const text = fields[i + count + 2];
    if (text !== undefined) lines.push(text.trimEnd());
    i += count + 3;
  }
  return lines.join("\n").split("\n").slice(-5).join("\n");
}

/** A merged tree checked out for a gate's cell to work in, and its removal. */
export interface GateCheckout {
  dir: string;
  remove(): Promise<void>;
}

/**
 * Checks the merged tree out into a scratch folder of its own for the gate's cell (attached or copied in): an
 * index of its own beside the folder, `read-tree -u`, and no `.git` in the folder at all. The folder is thrown
 * away after the gate; nothing in it is ever read back as trusted.
 */
export async function checkoutForGate(repo: string, tree: string): Promise<GateCheckout> {
  // The gate's cell writes into this checkout: room for the merged tree and what the gate makes, no more.
  const files = await committedFootprint(repo, tree);
  const scratch = await boundedScratch("ironclaw-integrate-", {
    bytes: files.bytes + files.inodes * INDEX_ENTRY_BYTES + GATE_WRITE_BYTES,
    inodes: files.inodes + 1 + GATE_WRITE_INODES,
  });
  const dir = join(scratch.dir, "tree");
  const indexFile = join(scratch.dir, "index");
  try {
    await mkdir(dir);
    await hostGit(repo, [`--work-tree=${dir}`, "read-tree", "-u", "--reset", tree], {
      indexFile,
      timeoutMs: 300_000,
    });
    await rm(indexFile, { force: true });
  } catch (error) {
    await scratch.remove();
    throw error;
  }
  return { dir, remove: () => scratch.remove() };
}

/** What a gate's commands may write in the merged checkout beyond its files (build output, caches). */
const GATE_WRITE_BYTES = 256 * 1024 * 1024;
const GATE_WRITE_INODES = 20_000;
/** Room for the checkout's index while it is written (an entry is well under this). */
const INDEX_ENTRY_BYTES = 256;

/** The files of a tree with their sizes, summed as a tmpfs holds them (pages, one inode per entry). */
async function committedFootprint(repo: string, tree: string): Promise<ScratchCap> {
  let bytes = 0;
  let inodes = 0;
  const listed = await hostGit(repo, ["ls-tree", "-r", "-t", "-l", "-z", "--full-tree", tree]);
  for (const line of listed.stdout.split("\0")) {
    if (line === "") continue;
    const size = Number(line.split(/\s+/)[3]);
    inodes += 1;
    bytes += Number.isFinite(size) ? Math.ceil(size / 4096) * 4096 + 4096 : 4096;
  }
  return { bytes, inodes };
}

/**
 * Moves main from `expected` to `merge` only if it still is `expected` (update-ref's compare-and-swap): a main
 * that moved meanwhile is never overwritten. `moved` when main now is `merge`; `synced` settles once main's
 * checkout has followed.
 */
export async function advanceMain(
  repo: string,
  merge: string,
  expected: string,
): Promise<{ moved: false } | { moved: true; synced: Promise<void> }> {
  const run = await hostGit(repo, ["update-ref", "-m", "integrate", MAIN_REF, merge, expected], {
    allowFailure: true,
  });
  if (run.code !== 0) return { moved: false };
  // The checkout follows while the caller records the move: nothing it writes is read by the record.
  return { moved: true, synced: syncCheckout(repo, expected, merge).catch(() => undefined) };
}

/**
 * A theater's repository has main checked out (the vault makes it so): its files and index follow main's move
 * as a fast-forward checkout would (`read-tree -m -u`), so that the repository does not show the merge undone.
 * Best effort: local changes someone made there are kept, and the files then stay as they were.
 */
async function syncCheckout(repo: string, from: string, to: string): Promise<void> {
  const found = await hostGit(repo, ["rev-parse", "--is-bare-repository", "--symbolic-full-name", "HEAD"], {
    allowFailure: true,
  });
  if (found.code !== 0 || found.stdout.trim() !== `false\n${MAIN_REF}`) return;
  await hostGit(repo, ["read-tree", "-m", "-u", from, to], { allowFailure: true });
}

/**
 * The commit on main's first-parent line that brought `tip` in: the oldest one that contains it. Being an
 * ancestor is monotonic along that line, so a binary search over it finds the merge in a few git calls.
 */
export async function findIntegratingCommit(repo: string, tip: string, main: string): Promise<string> {
  const line = (await hostGit(repo, ["rev-list", "--first-parent", main])).stdout.trim().split("\n");
  // line[0] is main itself and contains tip; find the largest index that still does.
  let contains = 0;
  let lacks = line.length;
  while (lacks - contains > 1) {
    const mid = (contains + lacks) >> 1;
    if (await isAncestor(repo, tip, line[mid] as string)) contains = mid;
    else lacks = mid;
  }
  return line[contains] as string;
}
