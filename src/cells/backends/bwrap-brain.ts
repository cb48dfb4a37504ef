import { constants } from "node:fs";
import { lstat, mkdir, open, rename } from "node:fs/promises";
import { join } from "node:path";
import type { Logger } from "../../core/index.js";
import { ensureBrainDir, handBrainTo } from "../brain-dir.js";
import { ensureBrainDisk } from "../brain-disk.js";
import { releaseBrainLock, takeBrainLock } from "../brain-lock.js";
import { measureBrainBytes } from "../brain-usage.js";
import type { BrainSeed, CellHandle } from "../cell.js";
import { CellStartError } from "../cell.js";

/**
 * Where a bwrap cell's brain lives. Under a root warden that can mount one, it is `brain.ext4`, the same sparse
 * ext4 image a microVM boots with, loop-mounted in the cell's own mount namespace: its size is a quota the
 * kernel enforces (ENOSPC), for all files together. Otherwise (no root, no loop devices) it is the `brain/`
 * directory, whose size is checked by the host (at start, then while the cell runs).
 */
export type BwrapBrain =
  | { kind: "image"; file: string; lockFile: string }
  | { kind: "dir"; dir: string; quotaBytes: number };

const MIB = 1024 * 1024;

export async function prepareBwrapBrain(options: {
  userId: string;
  userDir: string;
  /** The cell's host uid/gid under a root warden; undefined when the warden is not root. */
  owner: { uid: number; gid: number } | undefined;
  images: boolean;
  quotaMiB: number;
  seed: BrainSeed | undefined;
}): Promise<BwrapBrain> {
  const { userDir, owner, seed } = options;
  if (!owner) {
    await mkdir(userDir, { recursive: true, mode: 0o755 });
    const brain = await ensureBrainDir(userDir, seed);
    await checkQuota(brain.dir, options.quotaMiB);
    return { kind: "dir", dir: brain.dir, quotaBytes: options.quotaMiB * MIB };
  }
  await secureUserDir(userDir);
  if (options.images) {
    const lockFile = join(userDir, "brain.lock");
    await takeBrainLock(lockFile, options.userId);
    try {
      const fromDir = await legacyBrainDir(userDir);
      const disk = await ensureBrainDisk(userDir, options.quotaMiB, seed ?? {}, fromDir ? { fromDir } : {});
      // The directory now lives on in the image; it is kept, renamed, for its owner to remove.
      if (fromDir && disk.created) await rename(fromDir, join(userDir, "brain.moved-into-brain.ext4"));
      return { kind: "image", file: disk.file, lockFile };
    } catch (error) {
      await releaseBrainLock(lockFile);
      throw error;
    }
  }
  const brain = await ensureBrainDir(userDir, seed);
  await handBrainTo(brain.dir, owner);
  await checkQuota(brain.dir, options.quotaMiB);
  return { kind: "dir", dir: brain.dir, quotaBytes: options.quotaMiB * MIB };
}

/** users/<u>, root's alone (0700): no other cell uid can even reach this user's brain or brain.ext4. */
async function secureUserDir(userDir: string): Promise<void> {
  await mkdir(userDir, { recursive: true, mode: 0o700 });
  const dir = await open(userDir, constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW);
  try {
    const info = await dir.stat();
    if (info.uid !== 0 || info.gid !== 0) await dir.chown(0, 0);
    if ((info.mode & 0o077) !== 0) await dir.chmod(0o700);
  } finally {
    await dir.close();
  }
}

/** A directory brain from before this host could mount images, and no image yet: it moves into the image. */
async function legacyBrainDir(userDir: string): Promise<string | undefined> {
  const image = await lstat(join(userDir, "brain.ext4")).catch(() => undefined);
  if (image) return undefined;
  const dir = join(userDir, "brain");
  const info = await lstat(dir).catch(() => undefined);
  if (!info) return undefined;
  if (!info.isDirectory()) {
    throw new CellStartError(
      `${dir} is ${info.isSymbolicLink() ? "a symbolic link" : "not a directory"}: a brain must be a real directory; move it away and start again`,
    );
  }
  return dir;
}

/** A directory brain over its quota does not start: its owner frees space, or the operator raises the quota. */
async function checkQuota(dir: string, quotaMiB: number): Promise<void> {
  const usage = await measureBrainBytes(dir);
  if (usage.bytes > quotaMiB * MIB) {
    throw new CellStartError(
      `the brain in ${dir} takes ${Math.ceil(usage.bytes / MIB)} MiB, over its quota of ${quotaMiB} MiB: remove files from it or raise the cell's brainMiB limit`,
    );
  }
}

/**
 * A directory brain has no quota the kernel enforces (no root, or no loop devices): the warden measures it
 * while the cell runs and stops the cell once it is over. It cannot start again until space is freed.
 */
export function watchBrainQuota(
  cell: CellHandle,
  brain: Extract<BwrapBrain, { kind: "dir" }>,
  everyMs: number,
  logger: Logger,
): void {
  let checking = false;
  const timer = setInterval(() => {
    if (checking) return;
    checking = true;
    void measureBrainBytes(brain.dir)
      .then((usage) => {
        if (usage.bytes <= brain.quotaBytes) return;
        clearInterval(timer);
        const reason = `the brain passed its quota of ${Math.round(brain.quotaBytes / 1048576)} MiB`;
        logger.warn({ user: cell.userId, bytes: usage.bytes }, reason);
        return cell.stop({ timeoutMs: 2_000, reason }).then(() => undefined);
      })
      .catch(() => undefined)
      .finally(() => {
        checking = false;
      });
  }, everyMs);
  timer.unref();
  void cell.exited.then(() => clearInterval(timer));
}
