import { mkdir, realpath, rename, rm } from "node:fs/promises";
import { dirname } from "node:path";
import { ConflictError } from "../../core/index.js";
import { GitError, type GitResult, hostGit } from "../git/host-git.js";
import type { TheaterRecord } from "./theaters.js";
import { type WorktreeRef, worktreeGit } from "./worktree-guard.js";

/**
 * The theater repository's side of the vault's git: refs, worktree registrations, tags and bundles. These run in
 * the theater's own repository (trusted: no cell sees it), never in an order's worktree.
 */
export function repoGit(theater: TheaterRecord, args: readonly string[]): Promise<GitResult> {
  return hostGit(theater.repo_path, args);
}

/** The commit a ref names, or undefined when the ref does not exist. */
export async function resolveRef(theater: TheaterRecord, ref: string): Promise<string | undefined> {
  const result = await hostGit(theater.repo_path, ["rev-parse", "--verify", "--quiet", `${ref}^{commit}`], {
    allowFailure: true,
  });
  return result.code === 0 ? result.stdout.trim() : undefined;
}

/** Whether git has a worktree registered at `path` (comparing real paths, as git stores them). */
export async function isRegisteredWorktree(theater: TheaterRecord, path: string): Promise<boolean> {
  const real = await realpath(path).catch(() => path);
  const listing = await repoGit(theater, ["worktree", "list", "--porcelain", "-z"]);
  return listing.stdout
    .split("\0")
    .some((line) => line === `worktree ${path}` || line === `worktree ${real}`);
}

/**
 * How many commits of `branch` would be lost with it: those neither reachable from main nor kept by an archive
 * tag (`refs/tags/archive/*`, which archive() writes before it removes anything).
 */
export async function unkeptCommitCount(theater: TheaterRecord, branch: string): Promise<number> {
  const result = await repoGit(theater, [
    "rev-list",
    "--count",
    `refs/heads/${branch}`,
    "--not",
    "refs/heads/main",
    "--glob=refs/tags/archive/*",
  ]);
  return Number(result.stdout.trim());
}

/**
 * Commits what is staged in a worktree, if anything, and returns HEAD's SHA either way. `git commit` says which:
 * exit 1 with "nothing to commit" (or "no changes added to commit") when nothing is staged, under LANG=C.
 */
export async function commitStaged(worktree: WorktreeRef, message: string): Promise<string> {
  const args = ["commit", "-q", "--no-verify", "--untracked-files=no", "-m", message];
  const commit = await worktreeGit(worktree, args, { allowFailure: true });
  if (commit.code !== 0 && !(commit.code === 1 && NOTHING_STAGED.test(commit.stdout)))
    throw new GitError(args, commit.code, `${commit.stderr}${commit.stdout}`);
  return (await worktreeGit(worktree, ["rev-parse", "HEAD"])).stdout.trim();
}

/** What `git commit` prints when the index holds nothing new (LANG=C, as the host's git runs). */
const NOTHING_STAGED = /^(nothing to commit|nothing added to commit|no changes added to commit)/m;

/**
 * Keeps a branch's tip as `tag` and as a bundle of the branch and the tag (written whole: a partial file is renamed
 * into place). An earlier archive tag of the order moves forward only when the new tip contains it; never dropped.
 */
export async function archiveBranch(
  theater: TheaterRecord,
  branch: string,
  tag: string,
  bundlePath: string,
): Promise<string> {
  const tip = await resolveRef(theater, `refs/heads/${branch}`);
  if (!tip) throw new ConflictError(`branch ${branch} is gone; there is nothing to archive`);
  const tagged = await resolveRef(theater, `refs/tags/${tag}`);
  if (tagged && tagged !== tip) {
    const kept = await hostGit(theater.repo_path, ["merge-base", "--is-ancestor", tagged, tip], {
      allowFailure: true,
    });
    if (kept.code !== 0) throw new ConflictError(`tag ${tag} already keeps other commits than ${branch}`);
  }
  await repoGit(theater, ["tag", "-f", tag, tip]);
  await mkdir(dirname(bundlePath), { recursive: true });
  const partial = `${bundlePath}.partial`;
  await rm(partial, { force: true });
  await repoGit(theater, ["bundle", "create", "-q", partial, `refs/heads/${branch}`, `refs/tags/${tag}`]);
  await rename(partial, bundlePath);
  return tip;
}
