import { unlinkSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import {
  ConflictError,
  clearStale,
  currentOwner,
  isOwnerAlive,
  readOwner,
  tryTake,
} from "../../core/index.js";

/**
 * Runs one pipeline step (review, promote, rollback, evolve) holding the state directory's pipeline lock, so the
 * warden and the CLI never interleave their read-modify-write of the review queue: two approvals cannot lose one,
 * and a proposal cannot be promoted twice by two callers at once. The lock is a file created exclusively that names
 * its process; one left by a process that died is moved aside (under a name of our own, so a fresh lock another
 * process just took is never removed) and the step retries. Steps may await an applier, so waiting is async.
 */
export async function withPipelineLock<T>(
  path: string,
  work: () => Promise<T>,
  timeoutMs = 10_000,
): Promise<T> {
  const me = currentOwner();
  const deadline = Date.now() + timeoutMs;
  while (!tryTake(path, me)) {
    const holder = readOwner(path);
    if (holder !== undefined && holder !== "" && isOwnerAlive(holder) === false) {
      clearStale(path, holder);
      continue;
    }
    if (Date.now() > deadline)
      throw new ConflictError(
        `the evolution review queue is being changed by ${holder ?? "another process"}`,
      );
    await sleep(5);
  }
  try {
    return await work();
  } finally {
    unlinkSync(path);
  }
}
