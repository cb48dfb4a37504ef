import { readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { InvalidInputError } from "./errors.js";

const MAX_SYMLINK_HOPS = 40;

/**
 * Where a path really leads: the real path of its deepest existing ancestor with the rest appended. Dangling
 * symlinks are followed by hand — realpath fails on them, and writing through `brain/a.md -> /etc/x` would
 * otherwise pass a check made on the brain's own directory. Every path policy (brain, tools, file ops) checks
 * containment on this, not on the path as written.
 */
export function realpathOfDeepestExisting(path: string): string {
  return follow(resolve(path), 0, path);
}

function follow(path: string, hops: number, asGiven: string): string {
  let current = path;
  const rest: string[] = [];
  for (;;) {
    try {
      return join(realpathSync(current), ...rest);
    } catch {
      const link = readLink(current);
      if (link !== undefined) {
        if (hops >= MAX_SYMLINK_HOPS)
          throw new InvalidInputError("path", `${asGiven}: too many levels of symlinks`);
        return follow(join(resolve(dirname(current), link), ...rest), hops + 1, asGiven);
      }
      const parent = dirname(current);
      if (parent === current) return path;
      rest.unshift(basename(current));
      current = parent;
    }
  }
}

function readLink(path: string): string | undefined {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}

/** Whether `path` is `root` or below it (both absolute, already resolved). */
export function isWithin(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
}
