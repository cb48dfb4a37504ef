import { realpath, stat } from "node:fs/promises";
import { dirname } from "node:path";

/**
 * Whether any uid can read the directory `dir` by its path, and nobody but root can change what that path
 * leads to: it and every directory above it are root's, writable by root alone, and open to others (x, and
 * r+x for `dir` itself). Such a host path needs no stage: bwrap, as the cell's uid, binds it as root would,
 * and no one who could swap a directory on the way is anyone but root.
 */
export async function isPublicRootDir(dir: string): Promise<boolean> {
  let path: string;
  try {
    path = await realpath(dir);
  } catch {
    return false;
  }
  for (let current = path, first = true; ; first = false) {
    const info = await stat(current).catch(() => undefined);
    if (!info?.isDirectory() || info.uid !== 0) return false;
    if ((info.mode & 0o022) !== 0) return false; // group or others could replace an entry
    if ((info.mode & (first ? 0o005 : 0o001)) !== (first ? 0o005 : 0o001)) return false;
    const parent = dirname(current);
    if (parent === current) return true;
    current = parent;
  }
}
