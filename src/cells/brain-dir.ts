import { constants } from "node:fs";
import { type FileHandle, lchown, lstat, mkdir, open, readdir } from "node:fs/promises";
import { join } from "node:path";
import { initBrain } from "../memory/index.js";
import { type BrainSeed, CellStartError } from "./cell.js";

/**
 * The user's brain directory for the directory-based backends, created and seeded with memory's starter
 * layout (what `ironclaw brain init` writes) on first start. An existing brain is never touched: persistence
 * lives here, and only here.
 */
export async function ensureBrainDir(
  userDir: string,
  seed: BrainSeed = {},
): Promise<{ dir: string; created: boolean }> {
  const dir = join(userDir, "brain");
  // mkdir and readdir follow a link, and so would seeding, chowning and binding it: a brain that is a link
  // (a careless restore, a hand edit) would hand its target to the cell. Only a real directory is a brain.
  const existing = await lstat(dir).catch(() => undefined);
  if (existing && !existing.isDirectory()) {
    throw new CellStartError(
      `${dir} is ${existing.isSymbolicLink() ? "a symbolic link" : "not a directory"}: a brain must be a real directory; move it away and start again`,
    );
  }
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const created = (await readdir(dir)).length === 0;
  if (created) await initBrain(dir, seed);
  return { dir, created };
}

const DIR_NO_FOLLOW = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW;

/** Deeper than this, a brain was built to exhaust the walk; what lies below keeps its owner (see chownTree). */
const MAX_DEPTH = 256;

/**
 * Hands the brain to the cell's host uid, as a root warden must before bwrap runs the cell as that uid:
 * every entry owned by `owner` (only when the brain root is not already), the root itself mode 0700.
 */
export async function handBrainTo(dir: string, owner: { uid: number; gid: number }): Promise<void> {
  const root = await open(dir, DIR_NO_FOLLOW);
  try {
    const info = await root.stat();
    if (info.uid !== owner.uid || info.gid !== owner.gid) await chownTree(root, owner, 0);
    if ((info.mode & 0o7777) !== 0o700) await root.chmod(0o700);
  } finally {
    await root.close();
  }
}

/**
 * chown -R that never follows a link: the brain is guest-writable, so any entry may be a link to a host
 * file, and chown(2) as root would change the target. Entries are looked up through the open directory
 * (`/proc/self/fd/N/name`, the openat(2) of node's fs), so a directory swapped for a link after it was
 * opened cannot redirect the walk; links are lchown'd themselves and never descended. Hard links to host
 * files cannot exist: a brain is its own bind mount in the cell, and link(2) across mounts fails (EXDEV).
 */
async function chownTree(dir: FileHandle, owner: { uid: number; gid: number }, depth: number): Promise<void> {
  await dir.chown(owner.uid, owner.gid);
  // Below this the entries stay as they are: the cell cannot write them, which harms only its own user.
  if (depth >= MAX_DEPTH) return;
  const base = `/proc/self/fd/${dir.fd}`;
  for (const name of await readdir(base)) {
    const path = `${base}/${name}`;
    const info = await lstat(path).catch(() => undefined);
    if (!info) continue; // removed meanwhile
    if (!info.isDirectory()) {
      await lchown(path, owner.uid, owner.gid).catch(ignoreVanished);
      continue;
    }
    // O_NOFOLLOW: a directory replaced by a link since the lstat is skipped, not entered.
    const child = await open(path, DIR_NO_FOLLOW).catch(() => undefined);
    if (!child) continue;
    try {
      await chownTree(child, owner, depth + 1);
    } finally {
      await child.close();
    }
  }
}

function ignoreVanished(error: NodeJS.ErrnoException): void {
  if (error.code !== "ENOENT") throw error;
}
