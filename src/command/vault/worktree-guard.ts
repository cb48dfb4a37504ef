import { constants } from "node:fs";
import { lstat, open, readdir } from "node:fs/promises";
import { join } from "node:path";
import { ConflictError } from "../../core/index.js";
import { type GitOptions, type GitResult, hostGit } from "../git/host-git.js";

/**
 * A worktree a cell wrote is hostile to the host's git (ARCHITECTURE "Command"): a `.git` the worker replaced
 * with a folder of its own, or a symlink to one, carries hooks, an fsmonitor, filters and includes that git would
 * run. So the host checks that the worktree's `.git` is still the file git made, pointing at the repository's own
 * admin folder, and then never lets git find its repository by itself: every command names `--git-dir` (the
 * trusted admin folder) and `--work-tree` explicitly.
 */
export interface WorktreeRef {
  /** Absolute path of the worktree folder. */
  path: string;
  /** `<repo>/.git/worktrees/<name>`, symlinks resolved, as git writes it into the worktree's `.git` file. */
  adminDir: string;
}

/** Longer than any `gitdir: <path>` line git writes; a bigger `.git` file is refused without reading it all. */
const MAX_GIT_FILE_BYTES = 4096;

/** Refuses, naming why, unless the worktree is a real folder whose `.git` is the regular file git made. */
export async function checkWorktree(worktree: WorktreeRef): Promise<void> {
  const folder = await lstat(worktree.path);
  if (!folder.isDirectory())
    throw refuse(worktree, "the worktree path is not a folder (a symbolic link or a file replaced it)");
  const dotGit = join(worktree.path, ".git");
  const stat = await lstat(dotGit).catch(() => undefined);
  if (!stat) throw refuse(worktree, "its .git file is missing");
  if (stat.isSymbolicLink()) throw refuse(worktree, "its .git is a symbolic link, not the file git made");
  if (stat.isDirectory()) throw refuse(worktree, "its .git is a folder, not the file git made");
  if (!stat.isFile() || stat.size > MAX_GIT_FILE_BYTES)
    throw refuse(worktree, "its .git is not the small regular file git made");
  const text = await readNoFollow(dotGit);
  if (text.trimEnd() !== `gitdir: ${worktree.adminDir}`)
    throw refuse(worktree, `its .git points elsewhere than ${worktree.adminDir}`);
}

/**
 * Refuses a tree holding a `.git` below its root: git would take that folder for a nested repository (a gitlink)
 * and read its configuration. Symbolic links are not followed; they are data.
 */
export async function checkNoNestedGit(worktree: WorktreeRef): Promise<void> {
  const found: string[] = [];
  const walk = async (dir: string, relative: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const path = relative === "" ? entry.name : `${relative}/${entry.name}`;
      if (entry.name === ".git") {
        if (relative !== "") found.push(path);
      } else if (entry.isDirectory()) await walk(join(dir, entry.name), path);
    }
  };
  await walk(worktree.path, "");
  if (found.length > 0)
    throw refuse(worktree, `its tree holds a nested .git at ${found.slice(0, 5).join(", ")}`);
}

/** Runs git on a checked worktree through its trusted admin folder, never by discovery in the tree. */
export function worktreeGit(
  worktree: WorktreeRef,
  args: readonly string[],
  options?: GitOptions,
): Promise<GitResult> {
  return hostGit(
    worktree.path,
    [`--git-dir=${worktree.adminDir}`, `--work-tree=${worktree.path}`, ...args],
    options,
  );
}

/** The worktree's uncommitted paths (untracked included), as `git status --porcelain` names them. */
export async function uncommittedPaths(worktree: WorktreeRef): Promise<string[]> {
  const status = await worktreeGit(worktree, ["status", "--porcelain", "--untracked-files=all", "-z"]);
  const paths: string[] = [];
  const fields = status.stdout.split("\0");
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i] ?? "";
    if (field === "") continue;
    paths.push(field.slice(3));
    // A rename or copy is followed by its source path, which is part of the same entry.
    if (field[0] === "R" || field[0] === "C") i++;
  }
  return paths;
}

/** Writes a file in a worktree without following a symbolic link a tree may have planted at that name. */
export async function writeFileNoFollow(path: string, text: string): Promise<void> {
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
  const handle = await open(path, flags, 0o644).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ELOOP")
      throw new ConflictError(`${path} is a symbolic link; the vault does not follow it`);
    throw error;
  });
  try {
    await handle.writeFile(text, "utf8");
  } finally {
    await handle.close();
  }
}

async function readNoFollow(path: string): Promise<string> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const buffer = Buffer.alloc(MAX_GIT_FILE_BYTES);
    const { bytesRead } = await handle.read(buffer, 0, MAX_GIT_FILE_BYTES, 0);
    return buffer.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}

function refuse(worktree: WorktreeRef, why: string): ConflictError {
  return new ConflictError(`refusing to run git in worktree ${worktree.path}: ${why}`);
}
