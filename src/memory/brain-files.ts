import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { IronclawError } from "../core/index.js";
import { type BrainLayout, isIndexablePath } from "./brain-layout.js";

export interface BrainFile {
  path: string;
  absolute: string;
  mtimeMs: number;
  size: number;
}

export interface SkippedFile {
  path: string;
  reason: string;
}

/**
 * Every indexable markdown file of the brain. Symlinked files are followed only when they stay inside the
 * brain; symlinked directories are never entered (no cycles, no escapes); hidden entries and `db/` are ignored.
 */
export async function listBrainFiles(
  brain: BrainLayout,
): Promise<{ files: BrainFile[]; skipped: SkippedFile[] }> {
  const files: BrainFile[] = [];
  const skipped: SkippedFile[] = [];
  async function walk(relativeDir: string): Promise<void> {
    const entries = await readdir(join(brain.root, relativeDir), { withFileTypes: true });
    for (const entry of entries) {
      if (entry.name.startsWith(".")) continue;
      const path = relativeDir === "" ? entry.name : `${relativeDir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (path !== "db") await walk(path);
        continue;
      }
      if (!isIndexablePath(path) || !(entry.isFile() || entry.isSymbolicLink())) continue;
      try {
        // The walk never enters a symlinked directory, so only a symlinked file can lead out of the brain.
        const absolute = entry.isSymbolicLink() ? brain.resolve(path) : join(brain.root, path);
        const info = await stat(absolute);
        if (info.isFile()) files.push({ path, absolute, mtimeMs: Math.trunc(info.mtimeMs), size: info.size });
      } catch (error) {
        if (!(error instanceof IronclawError) && (error as NodeJS.ErrnoException).code !== "ENOENT")
          throw error;
        skipped.push({ path, reason: error instanceof IronclawError ? error.message : "dangling symlink" });
      }
    }
  }
  await walk("");
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, skipped };
}
