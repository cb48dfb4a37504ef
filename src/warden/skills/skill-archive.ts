import { constants } from "node:fs";
import { open } from "node:fs/promises";
import { basename } from "node:path";
import { gunzipSync } from "node:zlib";
import type { SkillFile } from "./skill-folder.js";
import { tooLarge } from "./skill-folder.js";
import { checkText, type SkillLimits, SkillRefusal, skillPath } from "./skill-refusal.js";
import { readTarEntries, TarFormatError } from "./tar-entries.js";

export const ARCHIVE_SUFFIXES = [".tar.gz", ".tgz", ".tar"] as const;

/** Headers and padding of a tar around its files: one block each plus the end marker, at most. */
const TAR_OVERHEAD_PER_FILE = 1024;

/**
 * The files of a skill packed as .tar, .tar.gz or .tgz, read into memory and judged entry by entry: links,
 * devices, absolute paths and `..` are refused, never extracted. When every file sits under one top folder
 * (`weather/SKILL.md`), that folder is the skill's folder; otherwise the archive's name without its suffix is.
 */
export async function readSkillArchive(
  file: string,
  limits: SkillLimits,
): Promise<{ folderName: string; files: SkillFile[] }> {
  const cap = limits.maxTotalBytes + limits.maxFiles * TAR_OVERHEAD_PER_FILE;
  const packed = await readCapped(file, cap, limits);
  let archive = packed;
  if (packed[0] === 0x1f && packed[1] === 0x8b) {
    try {
      archive = gunzipSync(packed, { maxOutputLength: cap });
    } catch (cause) {
      if ((cause as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge(limits);
      throw new SkillRefusal(`is not a valid gzip archive (${(cause as Error).message})`, file);
    }
  }
  let entries: ReturnType<typeof readTarEntries>;
  try {
    entries = readTarEntries(archive);
  } catch (cause) {
    if (cause instanceof TarFormatError)
      throw new SkillRefusal(`is not a valid tar archive: ${cause.message}`, file);
    throw cause;
  }
  const files: SkillFile[] = [];
  const seen = new Set<string>();
  let total = 0;
  for (const entry of entries) {
    // A folder entry only has to stay inside; `./` itself (what `tar -C skill .` writes first) is the root.
    if (entry.type === "dir") {
      if (entry.path.startsWith("/") || entry.path.split("/").includes("..")) skillPath(entry.path);
      continue;
    }
    const path = skillPath(entry.path);
    if (entry.type === "symlink")
      throw new SkillRefusal(
        `is a symbolic link (to ${entry.linkTarget}): a skill holds plain files only`,
        path,
      );
    if (entry.type === "hardlink")
      throw new SkillRefusal(`is a hard link (to ${entry.linkTarget}): a skill holds plain files only`, path);
    if (entry.type !== "file")
      throw new SkillRefusal(`is a ${entry.type} entry: a skill holds plain text files only`, path);
    if (seen.has(path)) throw new SkillRefusal("appears twice in the archive", path);
    seen.add(path);
    total += entry.data.length;
    if (total > limits.maxTotalBytes) throw tooLarge(limits);
    if (files.length >= limits.maxFiles)
      throw new SkillRefusal(
        `holds more than ${limits.maxFiles} files: a skill is instructions, not a payload`,
      );
    checkText(path, entry.data);
    files.push({ path, bytes: Buffer.from(entry.data) });
  }
  return unwrapTopFolder(file, files);
}

export function isArchiveName(file: string): boolean {
  return ARCHIVE_SUFFIXES.some((s) => file.endsWith(s));
}

function unwrapTopFolder(file: string, files: SkillFile[]): { folderName: string; files: SkillFile[] } {
  const tops = new Set(files.map((f) => (f.path.includes("/") ? f.path.slice(0, f.path.indexOf("/")) : "")));
  const [top] = tops;
  if (tops.size === 1 && top !== undefined && top !== "")
    return { folderName: top, files: files.map((f) => ({ ...f, path: f.path.slice(top.length + 1) })) };
  const name = basename(file);
  const suffix = ARCHIVE_SUFFIXES.find((s) => name.endsWith(s)) ?? "";
  return { folderName: name.slice(0, name.length - suffix.length), files };
}

async function readCapped(file: string, cap: number, limits: SkillLimits): Promise<Buffer> {
  const handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK).catch(
    (cause: NodeJS.ErrnoException) => {
      throw new SkillRefusal(
        cause.code === "ELOOP"
          ? "is a symbolic link: name the archive itself"
          : `cannot be read (${cause.code})`,
        file,
      );
    },
  );
  try {
    const info = await handle.stat();
    if (!info.isFile()) throw new SkillRefusal("is not a regular file", file);
    if (info.size > cap) throw tooLarge(limits);
    const buffer = Buffer.alloc(info.size + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > info.size) throw new SkillRefusal("grew while it was being read", file);
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}
