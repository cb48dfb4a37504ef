import type { JobQueue } from "../queue/job-queue.js";

/**
 * Renews a held job's lease at a third of its length while the job runs, so that a live worker keeps it and a
 * dead one loses it within one lease. `signal` aborts once a renewal says the lease was lost: another worker
 * may hold the job now, and this one must not report on it.
 */
export function keepLease(
  queue: JobQueue,
  jobId: string,
  workerId: string,
  leaseMs: number,
): { signal: AbortSignal; stop: () => void } {
  const lost = new AbortController();
  let renewing = false;
  const timer = setInterval(
    () => {
      if (renewing || lost.signal.aborted) return;
      renewing = true;
      queue
        .renew(jobId, workerId, leaseMs)
        .then((held) => {
          if (!held) lost.abort();
        })
        // A queue that cannot be reached is not a lost lease yet: the next renewal tries again.
        .catch(() => undefined)
        .finally(() => {
          renewing = false;
        });
    },
    Math.max(50, Math.floor(leaseMs / 3)),
  );
  timer.unref();
  return { signal: lost.signal, stop: () => clearInterval(timer) };
}
