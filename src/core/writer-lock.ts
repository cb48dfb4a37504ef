import { closeSync, linkSync, openSync, readFileSync, renameSync, unlinkSync, writeSync } from "node:fs";
import { ConflictError } from "./errors.js";
import { currentOwner, isOwnerAlive } from "./process-owner.js";

const pause = new Int32Array(new SharedArrayBuffer(4));

export function readOwner(path: string): string | undefined {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return undefined;
  }
}

/**
 * Removes a lock whose owner provably died (kill -9, power cut). The lock is first moved aside under a name of
 * our own, so two processes clearing the same stale lock cannot remove a fresh one the other just took: if what
 * was moved is not the dead owner's lock, it is put back (a link fails if a newer lock already stands).
 */
export function clearStale(path: string, staleOwner: string): void {
  const aside = `${path}.${process.pid}.stale`;
  try {
    renameSync(path, aside);
  } catch {
    return;
  }
  if (readOwner(aside) !== staleOwner) {
    try {
      linkSync(aside, path);
    } catch {
      // A newer lock stands; the one moved aside was taken and released meanwhile.
    }
  }
  unlinkSync(aside);
}

/** Creates the lock file exclusively, naming its owner; false when another holds it. */
export function tryTake(path: string, me: string): boolean {
  try {
    const fd = openSync(path, "wx");
    try {
      writeSync(fd, me);
    } finally {
      closeSync(fd);
    }
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    return false;
  }
}

/**
 * Runs `work` holding a writer lock: a file created exclusively that names this process. One writer at a time
 * per lock file, across processes (the warden and a CLI command may share a folder); a lock whose owner died is
 * cleared. The work is synchronous, so within one process writes never interleave either. `what` names what is
 * being written in the refusal of a writer that waited too long.
 */
export function withWriterLock<T>(
  path: string,
  work: () => T,
  options: { timeoutMs?: number; what?: string } = {},
): T {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const me = currentOwner();
  const started = Date.now();
  const deadline = started + timeoutMs;
  while (!tryTake(path, me)) {
    const holder = readOwner(path);
    // An empty lock is one whose creator died between creating and naming it, once it stays empty a while.
    const dead = holder === "" ? Date.now() - started > 1000 : isOwnerAlive(holder ?? null) === false;
    if (holder !== undefined && dead) {
      clearStale(path, holder);
      continue;
    }
    if (Date.now() > deadline)
      throw new ConflictError(
        `${options.what ?? "this state"} is being written by ${holder ?? "another process"}`,
      );
    Atomics.wait(pause, 0, 0, 5);
  }
  try {
    return work();
  } finally {
    unlinkSync(path);
  }
}
