import type { JobMessage } from "../../contracts/index.js";

/** A job a worker holds: the message and the lease that says until when it is this worker's alone. */
export interface ClaimedJob {
  /** The queue's id of this job (one per enqueue that was not a duplicate). */
  id: string;
  job: JobMessage;
  /** How many times the job has been handed to a worker, this claim included (1 on its first claim). */
  deliveries: number;
  /** ISO-8601 UTC: after this, another worker may claim the job (the holder is presumed dead). */
  leaseExpiresAt: string;
}

export interface EnqueueResult {
  id: string;
  /** True when a job with the same key was already waiting, held or done: nothing new was queued. */
  duplicate: boolean;
}

/** Jobs by state. A held job whose lease has passed counts as waiting: any worker may claim it. */
export interface QueueCounts {
  waiting: number;
  held: number;
  done: number;
}

/**
 * The worker queue (seed 000 §3.5, §4): durable, claims with leases, an expired lease makes the job claimable
 * again. Embedded it is a SQLite file beside the ledger; scaled out it is a table in the ledger's PostgreSQL,
 * claimed with `FOR UPDATE SKIP LOCKED` (postgres-queue.ts says why not pg-boss).
 * Both pass one conformance suite (test/command/queue-conformance.ts).
 *
 * A job is keyed (default: `order_id` + `attempt`), so the same job enqueued twice is queued once, also after it
 * was done (a new attempt is a new key). A bad job is refused with a ValidationError naming the field. Delivery is
 * at least once — a worker that dies holding a lease has its job handed to another — so what a job does must be
 * safe to do twice; the ledger's order state machine is what makes it so.
 */
export interface JobQueue {
  readonly kind: "sqlite" | "postgres";
  enqueue(job: JobMessage, options?: { key?: string }): Promise<EnqueueResult>;
  /**
   * The oldest claimable job (waiting, or held under a lease that has passed), leased to `workerId` for `leaseMs`
   * (1 ms to 24 h); undefined when none is claimable.
   */
  claim(workerId: string, leaseMs: number): Promise<ClaimedJob | undefined>;
  /**
   * Extends a held lease from now; false when the lease was lost: expired (claimed by another since or not),
   * released or completed. renew, complete and release act only for the holder of an unexpired lease.
   */
  renew(id: string, workerId: string, leaseMs: number): Promise<boolean>;
  /** Done with a job, whatever the order's outcome (that is in the ledger): it is never handed out again. */
  complete(id: string, workerId: string): Promise<boolean>;
  /** Gives a held job back at once (a worker shutting down), to be claimed again. */
  release(id: string, workerId: string): Promise<boolean>;
  /** Jobs waiting, held, and done: for health and tests. */
  counts(): Promise<QueueCounts>;
  close(): Promise<void>;
}
