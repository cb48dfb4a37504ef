import { createHash } from "node:crypto";
import { chmod, lstat, readdir, rename, rm } from "node:fs/promises";
import { join, relative } from "node:path";
import { runProgram } from "../core/index.js";
import { CellStartError } from "./cell.js";
import { countInstalledSkills, ensureSkillsDir } from "./skills-dir.js";

/** A microVM cell's skills disk: the image file, and the digest of the folder it was made from. */
export interface SkillsDisk {
  file: string;
  digest: string;
}

const DISK_PREFIX = "skills-";
const DISK_SUFFIX = ".ext4";

/**
 * The user's installed skills as a read-only disk for a microVM cell, `users/<uid>/skills-<digest>.ext4`, made
 * from `users/<uid>/skills/` when that folder changed since the last one (a skill installed, updated or removed):
 * the digest covers every entry's path, type, mode, size and modification time, so a new one is made only then.
 * A guest cannot change it (QEMU opens it read-only, the guest mounts it read-only), and its files are root's,
 * readable by the cell user. Undefined when the user has no skills: no disk, and the cell lists none.
 */
export async function ensureSkillsDisk(userDir: string): Promise<SkillsDisk | undefined> {
  const olds = await disksIn(userDir);
  if ((await countInstalledSkills(userDir)) === 0) {
    await Promise.all(olds.map((name) => rm(join(userDir, name), { force: true })));
    return undefined;
  }
  const dir = await ensureSkillsDir(userDir);
  const { digest, bytes, entries } = await treeDigest(dir);
  const file = join(userDir, `${DISK_PREFIX}${digest}${DISK_SUFFIX}`);
  const existing = await lstat(file).catch(() => undefined);
  if (existing?.isFile()) return { file, digest };
  // A link or anything else under that name is never followed: it is replaced.
  const tmp = `${file}.tmp`;
  await rm(tmp, { force: true, recursive: true });
  // Room for the files, an inode and a block's slack for each entry, and ext4's own (no journal: read-only).
  const sizeMiB = Math.max(8, Math.ceil((bytes * 1.1 + entries * 8192) / (1024 * 1024)) + 4);
  const mkfs = await runProgram(
    "mkfs.ext4",
    [
      ...["-q", "-F", "-L", "irc-skills", "-m", "0", "-O", "^has_journal"],
      ...["-E", "root_owner=0:0", "-d", dir, tmp, `${sizeMiB}M`],
    ],
    120_000,
  );
  // mkfs makes lost+found, which the agent would list as a skill without a SKILL.md: a read-only disk needs none.
  const tidy = mkfs.ok ? await runProgram("debugfs", ["-w", "-R", "rmdir /lost+found", tmp], 30_000) : mkfs;
  if (!tidy.ok) {
    await rm(tmp, { force: true });
    throw new CellStartError(`making the skills disk failed: ${tidy.stderr.trim() || tidy.error || "?"}`);
  }
  await chmod(tmp, 0o600);
  await rm(file, { force: true, recursive: true });
  await rename(tmp, file);
  await Promise.all(
    olds
      .filter((name) => join(userDir, name) !== file)
      .map((name) => rm(join(userDir, name), { force: true })),
  );
  return { file, digest };
}

async function disksIn(userDir: string): Promise<string[]> {
  const names = await readdir(userDir).catch(() => [] as string[]);
  return names.filter((n) => n.startsWith(DISK_PREFIX) && (n.endsWith(DISK_SUFFIX) || n.endsWith(".tmp")));
}

/** What the disk is made from, hashed without reading the files: the warden alone writes the folder. */
async function treeDigest(dir: string): Promise<{ digest: string; bytes: number; entries: number }> {
  const hash = createHash("sha256");
  let bytes = 0;
  const names = (await readdir(dir, { recursive: true })).map(String).sort();
  for (const name of names) {
    const info = await lstat(join(dir, name));
    bytes += info.size;
    const type = info.isDirectory() ? "d" : info.isFile() ? "f" : "o";
    hash.update(`${relative(dir, join(dir, name))}\0${type}\0${info.mode}\0${info.size}\0${info.mtimeMs}\n`);
  }
  return { digest: hash.digest("hex").slice(0, 16), bytes, entries: names.length };
}
