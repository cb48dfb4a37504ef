import { constants } from "node:fs";
import { lstat, mkdir, open, unlink } from "node:fs/promises";
import { join } from "node:path";

/**
 * The host's side of a tree transfer: reading and writing files of an order's worktree without following a link.
 * A worktree holds what a cell wrote and what the repository's history holds, links included, and a link
 * followed by the host (`a -> /etc`, then `a/passwd`) would write outside it. No cell can change the worktree
 * while this runs (cells only ever see a copy), so checking each component with lstat is not racing anyone.
 */

/** A reason to skip one path, reported rather than thrown: the rest of the tree still transfers. */
export class SkipPath extends Error {
  override readonly name = "SkipPath";
}

/** A component git itself would treat as its own directory, refused in either direction (case-folded). */
export function isGitName(name: string): boolean {
  return name.toLowerCase() === ".git";
}

/** Reads a regular file of at most `maxBytes`, refusing links and anything else. */
export async function readHostFile(path: string, maxBytes: number): Promise<Buffer> {
  const file = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    const info = await file.stat();
    if (!info.isFile()) throw new SkipPath("not a regular file");
    if (info.size > maxBytes) throw new SkipPath(`${info.size} bytes is over the ${maxBytes}-byte file cap`);
    const buffer = Buffer.alloc(info.size);
    const { bytesRead } = await file.read(buffer, 0, info.size, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await file.close();
  }
}

/**
 * Writes `bytes` at `rel` (slash-separated, components already checked) under `root`, creating folders. A
 * parent that is a link or a file is not followed or replaced: the path is skipped. A link where the file goes
 * is removed first, so the file replaces it instead of writing through it.
 */
export async function writeHostFile(root: string, rel: string, bytes: Buffer): Promise<void> {
  const parts = rel.split("/");
  const name = parts.pop() as string;
  let dir = root;
  for (const part of parts) {
    dir = join(dir, part);
    const info = await lstatOrUndefined(dir);
    if (!info) await mkdir(dir, { mode: 0o755 });
    else if (!info.isDirectory()) throw new SkipPath(`${part} is not a folder in the worktree`);
  }
  const target = join(dir, name);
  const existing = await lstatOrUndefined(target);
  if (existing?.isDirectory()) throw new SkipPath("a folder of the worktree has this name");
  if (existing && !existing.isFile()) await unlink(target);
  const flags = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW;
  const file = await open(target, flags, 0o644);
  try {
    await file.writeFile(bytes);
  } finally {
    await file.close();
  }
}

/** Removes the regular file or link at `rel` under `root` when every parent is a real folder; false otherwise. */
export async function removeHostFile(root: string, rel: string): Promise<boolean> {
  const parts = rel.split("/");
  let dir = root;
  for (const part of parts.slice(0, -1)) {
    dir = join(dir, part);
    if (!(await lstatOrUndefined(dir))?.isDirectory()) return false;
  }
  const target = join(dir, parts.at(-1) as string);
  const info = await lstatOrUndefined(target);
  if (!info || info.isDirectory()) return false;
  await unlink(target);
  return true;
}

async function lstatOrUndefined(path: string) {
  try {
    return await lstat(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
