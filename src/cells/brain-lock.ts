import { open, readFile, rm } from "node:fs/promises";
import { CellStartError } from "./cell.js";

/**
 * An exclusive lock file holding the warden's pid, for brains that are disk images: two writers of one ext4
 * image (two VMs, or two mounts through two loop devices) would corrupt it. A lock whose process is gone is
 * stale and taken over.
 */
export async function takeBrainLock(lockFile: string, userId: string): Promise<void> {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const lock = await open(lockFile, "wx");
      await lock.write(String(process.pid));
      await lock.close();
      return;
    } catch {
      const owner = Number(await readFile(lockFile, "utf8").catch(() => "0"));
      if (owner > 0 && owner !== process.pid && isAlive(owner)) break;
      if (owner === process.pid) break;
      await rm(lockFile, { force: true });
    }
  }
  throw new CellStartError(`the brain of ${userId} is in use by another cell (${lockFile})`);
}

/** The pid of the live process holding this lock, or undefined when it is free or its holder is gone. */
export async function brainLockHolder(lockFile: string): Promise<number | undefined> {
  const owner = Number(await readFile(lockFile, "utf8").catch(() => "0"));
  return owner > 0 && isAlive(owner) ? owner : undefined;
}

export async function releaseBrainLock(lockFile: string): Promise<void> {
  await rm(lockFile, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: alive, and another user's (a root warden's lock seen from an operator's shell).
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
