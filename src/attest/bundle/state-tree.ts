import {
  closeDir,
  closeFile,
  InvalidInputError,
  listDirectory,
  type OpenDir,
  openDirectory,
  openFile,
  readOpenFile,
} from "../../core/index.js";
import type { TarEntry } from "./ustar.js";

/** A brain holds more than this in plain bytes: refused rather than buffered (bundles are built in memory). */
export const MAX_STATE_BYTES = 1024 * 1024 * 1024;

export interface SkippedEntry {
  path: string;
  reason: string;
}

/**
 * Every regular file and directory of a brain, sorted by path. A brain is written by its cell, so it is hostile:
 * each directory is opened inside the one before it without following links, each file read through the
 * descriptor that was checked and only as far as the cap, and links or special files are left out (and named)
 * rather than followed.
 */
export function readStateTree(root: string): { entries: TarEntry[]; skipped: SkippedEntry[] } {
  const entries: TarEntry[] = [];
  const skipped: SkippedEntry[] = [];
  const top = openDirectory(root, [], { shown: root });
  if (!top) throw new InvalidInputError("stateDir", `${root} does not exist`);
  let total = 0;
  const walk = (dir: OpenDir, prefix: string): void => {
    for (const entry of listDirectory(dir)) {
      const path = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
      if (entry.isDirectory()) {
        // Each component again from the root, none through a link: a directory swapped for one meanwhile is refused.
        const child = openDirectory(root, path.split("/"), { shown: path });
        if (!child) continue; // removed meanwhile
        entries.push({ path, type: "dir", data: Buffer.alloc(0) });
        try {
          walk(child, path);
        } finally {
          closeDir(child);
        }
      } else if (entry.isFile()) {
        const file = openFile(dir, entry.name, "read");
        if (!file) continue;
        try {
          const data = readOpenFile(file, MAX_STATE_BYTES - total + 1);
          total += data.length;
          if (total > MAX_STATE_BYTES)
            throw new InvalidInputError(
              "stateDir",
              `holds more than ${MAX_STATE_BYTES} bytes; too big for a bundle`,
            );
          entries.push({ path, type: "file", data });
        } finally {
          closeFile(file);
        }
      } else {
        skipped.push({ path, reason: entry.isSymbolicLink() ? "a symbolic link" : "not a regular file" });
      }
    }
  };
  try {
    walk(top, "");
  } finally {
    closeDir(top);
  }
  return { entries: sortByPath(entries), skipped: skipped.sort((a, b) => compare(a.path, b.path)) };
}

export function sortByPath(entries: TarEntry[]): TarEntry[] {
  return entries.sort((a, b) => compare(a.path, b.path));
}

/** Byte order of the UTF-8 paths, the same on every machine and locale. */
function compare(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}
