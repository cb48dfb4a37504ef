import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from "node:fs";
import { ConflictError } from "../../core/index.js";

/**
 * One writer of a user's history at a time, across processes (the warden recording a turn, the CLI restoring):
 * a lock file holding the writer's pid, made with O_EXCL. A lock whose process is gone is stale and taken over.
 */
export async function withHistoryLock<T>(file: string, work: () => Promise<T>, waitMs = 30_000): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (;;) {
    if (tryLock(file)) break;
    if (Date.now() > deadline)
      throw new ConflictError(`the brain history is being written by another process (${file})`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  try {
    return await work();
  } finally {
    rmSync(file, { force: true });
  }
}

function tryLock(file: string): boolean {
  try {
    const fd = openSync(file, "wx", 0o600);
    writeSync(fd, String(process.pid));
    closeSync(fd);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  let text: string;
  try {
    text = readFileSync(file, "utf8").trim();
  } catch {
    return false; // released meanwhile: try again
  }
  // Empty: made an instant ago and its pid not written yet, unless it was left so long ago that no one will.
  if (text === "") {
    const made = statSync(file, { throwIfNoEntry: false })?.mtimeMs ?? 0;
    return Date.now() - made < 5_000 ? false : unlockStale(file);
  }
  const holder = Number(text);
  // A lock of this very process is held by another of its writers: wait for it like any other.
  if (holder > 0 && (holder === process.pid || isAlive(holder))) return false;
  return unlockStale(file);
}

function unlockStale(file: string): false {
  rmSync(file, { force: true });
  return false;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
