import { basename, join } from "node:path";
import type { OrderSnapshot } from "../../ledger/index.js";
import { hostGit } from "../git/host-git.js";
import { readAar } from "../integration/worktree-files.js";
import { realGitDir, type TheaterRecord } from "../vault/theaters.js";
import { checkWorktree, uncommittedPaths, type WorktreeRef } from "../vault/worktree-guard.js";

/** Paths named in a dirty-worktree finding; the rest are counted. */
const NAMED_PATHS = 5;

/**
 * When the order's branch last got a commit (ms since the epoch), read in the theater's own repository, which no
 * cell touches; undefined when the branch does not exist.
 */
export async function lastCommitAt(theater: TheaterRecord, branch: string): Promise<number | undefined> {
  const result = await hostGit(
    theater.repo_path,
    ["log", "-1", "--format=%ct", `refs/heads/${branch}`, "--"],
    {
      allowFailure: true,
    },
  );
  const seconds = Number(result.stdout.trim());
  return result.code === 0 && Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : undefined;
}

/**
 * What is wrong with a worktree's state ("Dirty worktree states"), or undefined when it is clean. A worktree whose
 * `.git` a cell replaced is reported, not inspected: git would run the cell's configuration.
 */
export async function dirtyState(theater: TheaterRecord, worktreePath: string): Promise<string | undefined> {
  const worktree: WorktreeRef = {
    path: worktreePath,
    adminDir: join(await realGitDir(theater), "worktrees", basename(worktreePath)),
  };
  try {
    await checkWorktree(worktree);
  } catch (error) {
    return `the worktree is not safe to inspect: ${(error as Error).message}`;
  }
  const paths = await uncommittedPaths(worktree);
  if (paths.length === 0) return undefined;
  const more = paths.length > NAMED_PATHS ? ` and ${paths.length - NAMED_PATHS} more` : "";
  return `uncommitted changes: ${paths.slice(0, NAMED_PATHS).join(", ")}${more}`;
}

/** Why a completed order's aar.json is not valid (seed 000 §3.7 "Validate aar.json schema"), or undefined. */
export function aarProblem(order: OrderSnapshot, worktreePath: string): string | undefined {
  try {
    const aar = readAar(worktreePath, order.order_id);
    return aar.status === "completed" ? undefined : `aar.json reports ${aar.status}, not completed`;
  } catch (error) {
    return `aar.json: ${(error as Error).message}`;
  }
}

/**
 * The artifacts the order declared (ARTIFACT_WRITTEN and aar.json's list) that its branch does not hold
 * ("Ensure artifacts exist"); read from the branch, as integration merges the branch and not the folder.
 */
export async function missingArtifacts(
  theater: TheaterRecord,
  order: OrderSnapshot,
  worktreePath: string,
): Promise<string[]> {
  const declared = new Set(order.artifacts.map((a) => a.path));
  try {
    for (const artifact of readAar(worktreePath, order.order_id).artifacts) declared.add(artifact.path);
  } catch {
    // An unreadable aar.json is its own finding; the ledger's pointers are still checked.
  }
  const branch = order.branch ?? `order_${order.order_id}`;
  const missing: string[] = [];
  for (const path of declared) {
    const found = await hostGit(theater.repo_path, ["cat-file", "-e", `refs/heads/${branch}:${path}`], {
      allowFailure: true,
    });
    if (found.code !== 0) missing.push(path);
  }
  return missing;
}
