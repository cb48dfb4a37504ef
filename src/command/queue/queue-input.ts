import { type JobMessage, jobMessageContract, parseContract } from "../../contracts/index.js";
import { InvalidInputError } from "../../core/index.js";

/** A lease longer than a day is a worker that is never presumed dead: refused as a mistake. */
const MAX_LEASE_MS = 24 * 60 * 60 * 1000;

/** The job as the queue stores it, and the key it is deduplicated by. Throws a ValidationError naming each bad field. */
export function admitJob(job: unknown, key: string | undefined): { job: JobMessage; key: string } {
  const parsed = parseContract(jobMessageContract, job);
  if (key !== undefined && (typeof key !== "string" || key.length === 0 || key.length > 512))
    throw new InvalidInputError("key", "must be a string of 1 to 512 characters");
  return { job: parsed, key: key ?? `${parsed.order_id}:${parsed.attempt}` };
}

/** Checks what a worker passes with a claim or renewal, so that a typo cannot lease a job forever or never. */
export function checkLease(workerId: string, leaseMs: number): void {
  checkWorker(workerId);
  if (!Number.isSafeInteger(leaseMs) || leaseMs < 1 || leaseMs > MAX_LEASE_MS)
    throw new InvalidInputError(
      "leaseMs",
      `must be a whole number of milliseconds from 1 to ${MAX_LEASE_MS}`,
    );
}

export function checkWorker(workerId: string): void {
  if (typeof workerId !== "string" || workerId.length === 0 || workerId.length > 256)
    throw new InvalidInputError("workerId", "must be a string of 1 to 256 characters");
}
