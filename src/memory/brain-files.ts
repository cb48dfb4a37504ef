import { closeSync } from "node:fs";
import { type FileHandle, lstat, open, readdir } from "node:fs/promises";
import { BrainFileRefusal, DIR_FLAGS, openBrainFile } from "./brain-file-access.js";
import { type BrainLayout, isIndexablePath } from "./brain-layout.js";

export interface BrainFile {
  path: string;
  mtimeMs: number;
  size: number;
}

export interface SkippedFile {
  path: string;
  reason: string;
}

/** Deeper than this, a brain was built to exhaust the walk; what lies below is not indexed. */
const MAX_DEPTH = 64;

/**
 * Every indexable markdown file of the brain. Symlinked files are followed only when they stay inside the
 * brain; symlinked directories are never entered (no cycles, no escapes); hidden entries and `db/` are ignored.
 * The walk holds each directory open and looks its entries up through it, so a directory swapped for a link
 * while the walk runs is not entered; sizes and times are only hints for what to re-read (see readBrainFile).
 */
export async function listBrainFiles(
  brain: BrainLayout,
): Promise<{ files: BrainFile[]; skipped: SkippedFile[] }> {
  const files: BrainFile[] = [];
  const skipped: SkippedFile[] = [];
  async function walk(dir: FileHandle, relativeDir: string, depth: number): Promise<void> {
    const base = `/proc/self/fd/${dir.fd}`;
    for (const entry of await readdir(base, { withFileTypes: true })) {
      if (entry.name.startsWith(".")) continue;
      const path = relativeDir === "" ? entry.name : `${relativeDir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (path === "db" || depth >= MAX_DEPTH) continue;
        const child = await openDirectory(`${base}/${entry.name}`);
        if (!child) continue;
        try {
          await walk(child, path, depth + 1);
        } finally {
          await child.close();
        }
        continue;
      }
      if (!isIndexablePath(path) || !(entry.isFile() || entry.isSymbolicLink())) continue;
      const found = await describe(brain, `${base}/${entry.name}`, path).catch((error: unknown) => {
        if (!(error instanceof BrainFileRefusal)) throw error;
        skipped.push({ path, reason: error.rule });
        return undefined;
      });
      if (found) files.push(found);
      else if (found === null) skipped.push({ path, reason: "dangling symlink" });
    }
  }
  const root = await open(brain.root, DIR_FLAGS);
  try {
    await walk(root, "", 0);
  } finally {
    await root.close();
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { files, skipped };
}

/** A directory entry opened without following a link; undefined when it became something else meanwhile. */
async function openDirectory(at: string): Promise<FileHandle | undefined> {
  return open(at, DIR_FLAGS).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOTDIR" || error.code === "ENOENT" || error.code === "ELOOP") return undefined;
    throw error;
  });
}

/**
 * Size and time of a listed file: lstat for a plain file, and for a link the file it leads to inside the brain.
 * null for a dangling link, undefined for an entry that vanished or turned into something not indexable.
 */
async function describe(brain: BrainLayout, at: string, path: string): Promise<BrainFile | null | undefined> {
  const info = await lstat(at).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return undefined;
    throw error;
  });
  if (info?.isFile()) return { path, mtimeMs: Math.trunc(info.mtimeMs), size: info.size };
  if (!info?.isSymbolicLink()) return undefined;
  const opened = openBrainFile(brain.root, path);
  if (!opened) return null;
  closeSync(opened.fd);
  return { path, mtimeMs: Math.trunc(opened.info.mtimeMs), size: opened.info.size };
}
