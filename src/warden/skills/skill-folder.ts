import { constants } from "node:fs";
import { lstat, open, readdir, readlink, realpath } from "node:fs/promises";
import { join } from "node:path";
import { checkText, type SkillLimits, SkillRefusal, skillPath } from "./skill-refusal.js";

export interface SkillFile {
  /** `/`-separated, relative to the skill's folder. */
  path: string;
  bytes: Buffer;
}

interface Planned {
  path: string;
  full: string;
  dev: number;
  ino: number;
}

/**
 * The files of a skill folder, read as hostile (the folder may be a draft in a brain the agent writes while we
 * read): a link, a hard link, a device or pipe, a binary or more than the limits allow is refused. Sizes are summed
 * before any file is read, and each file is opened without following links, checked by its descriptor to be the
 * file listed and to lie inside the folder, and read no further than the bytes left in the budget.
 */
export async function readSkillFolder(root: string, limits: SkillLimits): Promise<SkillFile[]> {
  const info = await lstat(root).catch(() => undefined);
  if (!info) throw new SkillRefusal("does not exist", root);
  if (info.isSymbolicLink()) throw new SkillRefusal("is a symbolic link: name the folder itself", root);
  if (!info.isDirectory())
    throw new SkillRefusal("is neither a folder nor a .tar, .tar.gz or .tgz archive", root);
  const realRoot = await realpath(root);
  const planned: Planned[] = [];
  await walk(realRoot, "", 0, planned, { total: 0 }, limits);
  const files: SkillFile[] = [];
  let left = limits.maxTotalBytes;
  for (const entry of planned) {
    const bytes = await readPlanned(entry, realRoot, left);
    left -= bytes.length;
    checkText(entry.path, bytes);
    files.push({ path: entry.path, bytes });
  }
  return files;
}

async function walk(
  dir: string,
  prefix: string,
  depth: number,
  out: Planned[],
  sum: { total: number },
  limits: SkillLimits,
): Promise<void> {
  if (depth > limits.maxDepth)
    throw new SkillRefusal(`nests folders deeper than ${limits.maxDepth} levels`, prefix || ".");
  const names = (await readdir(dir)).sort();
  for (const name of names) {
    const path = skillPath(prefix === "" ? name : `${prefix}/${name}`);
    const full = join(dir, name);
    const info = await lstat(full);
    if (info.isSymbolicLink()) {
      const target = await readlink(full).catch(() => "?");
      throw new SkillRefusal(`is a symbolic link (to ${target}): a skill holds plain files only`, path);
    }
    if (info.isDirectory()) {
      await walk(full, path, depth + 1, out, sum, limits);
      continue;
    }
    if (!info.isFile())
      throw new SkillRefusal("is a device, pipe or socket: a skill holds plain text files only", path);
    if (info.nlink > 1)
      throw new SkillRefusal(
        "is a hard link (the same file has another name): a skill holds plain files only",
        path,
      );
    sum.total += info.size;
    if (sum.total > limits.maxTotalBytes) throw tooLarge(limits);
    if (out.length >= limits.maxFiles)
      throw new SkillRefusal(
        `holds more than ${limits.maxFiles} files: a skill is instructions, not a payload`,
      );
    out.push({ path, full, dev: info.dev, ino: info.ino });
  }
}

async function readPlanned(entry: Planned, realRoot: string, budget: number): Promise<Buffer> {
  const handle = await open(
    entry.full,
    constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK,
  ).catch((cause: NodeJS.ErrnoException) => {
    throw new SkillRefusal(`cannot be opened without following a link (${cause.code})`, entry.path);
  });
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.dev !== entry.dev || info.ino !== entry.ino || info.nlink > 1)
      throw new SkillRefusal(
        "changed while it was being read: review the skill again once it is still",
        entry.path,
      );
    // The descriptor's own path, from the kernel: a folder swapped for a link mid-read shows up here.
    const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => undefined);
    if (opened !== undefined && !opened.startsWith(`${realRoot}/`))
      throw new SkillRefusal("resolves outside the skill's folder", entry.path);
    const buffer = Buffer.alloc(Math.min(info.size, budget) + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > budget)
      throw new SkillRefusal("grew while it was being read past the size limit", entry.path);
    return buffer.subarray(0, length);
  } finally {
    await handle.close();
  }
}

export function tooLarge(limits: SkillLimits): SkillRefusal {
  const mb = Math.round(limits.maxTotalBytes / (1024 * 1024));
  return new SkillRefusal(`holds more than ${mb} MB in all: a skill is instructions, not a payload`);
}
