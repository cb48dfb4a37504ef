import { join } from "node:path";
import { boundedScratch, type ScratchCap } from "../cells/index.js";
import { hostGit } from "../git/host-git.js";
import { recordsMovedCommit } from "./order-records.js";

/** The theater's mainline: the branch integration promotes orders into. */
export const MAIN_REF = "refs/heads/main";

/** An order branch merged onto one main commit, in a worktree of its own, or the paths that conflicted. */
export type PreparedMerge =
  | { kind: "merged"; tree: string; merge: string; base: string; remove(): Promise<void> }
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
 * Merges `branch` onto the main commit `base` in a temporary detached worktree (`--no-ff`: main gets exactly one
 * merge commit per order). The theater's main and the order's worktree are not touched. On a conflict the merge
 * is aborted and the worktree removed; on success the caller removes it with `remove()` once it has gated it.
 */
export async function prepareMerge(
  repo: string,
  base: string,
  branch: string,
  orderId: string,
): Promise<PreparedMerge> {
  const tip = await resolveCommit(repo, `refs/heads/${branch}`);
  if (tip === undefined) throw new Error(`the order branch ${branch} is gone`);
  // The gate's cell writes into this checkout: room for both sides of the merge and what the gate makes, no more.
  const sides = await committedFootprint(repo, [base, tip]);
  const scratch = await boundedScratch("ironclaw-integrate-", {
    bytes: sides.bytes + GATE_WRITE_BYTES,
    inodes: sides.inodes + GATE_WRITE_INODES,
  });
  const tree = join(scratch.dir, "tree");
  const remove = async () => {
    await hostGit(repo, ["worktree", "remove", "--force", tree], { allowFailure: true });
    await scratch.remove();
    await hostGit(repo, ["worktree", "prune"], { allowFailure: true });
  };
  try {
    await hostGit(repo, ["worktree", "add", "--detach", tree, base]);
    const message = `Integrate order ${orderId} (${branch})`;
    const product = await recordsMovedCommit(repo, tip, base, orderId);
    const merged = await hostGit(tree, ["merge", "--no-ff", "--no-edit", "-m", message, product], {
      allowFailure: true,
      timeoutMs: 300_000,
    });
    if (merged.code !== 0) {
      const unmerged = await hostGit(tree, ["diff", "--name-only", "--diff-filter=U", "-z"], {
        allowFailure: true,
      });
      const paths = unmerged.stdout.split("\0").filter((p) => p !== "");
      await hostGit(tree, ["merge", "--abort"], { allowFailure: true });
      await remove();
      const detail = `${merged.stdout}\n${merged.stderr}`.trim().split("\n").slice(-5).join("\n");
      return { kind: "conflict", paths, detail, base };
    }
    const merge = await resolveCommit(tree, "HEAD");
    if (merge === undefined) throw new Error(`the merge of ${branch} left no HEAD in ${tree}`);
    return { kind: "merged", tree, merge, base, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}

/** What a gate's commands may write in the merged checkout beyond the two sides' files (build output, caches). */
const GATE_WRITE_BYTES = 256 * 1024 * 1024;
const GATE_WRITE_INODES = 20_000;

/** The files of each commit with their sizes, summed as a tmpfs holds them (pages, one inode per entry). */
async function committedFootprint(repo: string, revs: string[]): Promise<ScratchCap> {
  let bytes = 0;
  let inodes = 0;
  for (const rev of revs) {
    const listed = await hostGit(repo, ["ls-tree", "-r", "-t", "-l", "-z", "--full-tree", rev]);
    for (const line of listed.stdout.split("\0")) {
      if (line === "") continue;
      const size = Number(line.split(/\s+/)[3]);
      inodes += 1;
      bytes += Number.isFinite(size) ? Math.ceil(size / 4096) * 4096 + 4096 : 4096;
    }
  }
  return { bytes, inodes };
}

/**
 * Moves main from `expected` to `merge` only if it still is `expected` (update-ref's compare-and-swap): a main
 * that moved meanwhile is never overwritten. True when main now is `merge`.
 */
export async function advanceMain(repo: string, merge: string, expected: string): Promise<boolean> {
  const run = await hostGit(repo, ["update-ref", "-m", "integrate", MAIN_REF, merge, expected], {
    allowFailure: true,
  });
  if (run.code !== 0) return false;
  await syncCheckout(repo, expected, merge);
  return true;
}

/**
 * A theater's repository has main checked out (the vault makes it so): its files and index follow main's move
 * as a fast-forward checkout would (`read-tree -m -u`), so that the repository does not show the merge undone.
 * Best effort: local changes someone made there are kept, and the files then stay as they were.
 */
async function syncCheckout(repo: string, from: string, to: string): Promise<void> {
  const head = await hostGit(repo, ["symbolic-ref", "--quiet", "HEAD"], { allowFailure: true });
  const bare = await hostGit(repo, ["rev-parse", "--is-bare-repository"], { allowFailure: true });
  if (head.stdout.trim() !== MAIN_REF || bare.stdout.trim() !== "false") return;
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
