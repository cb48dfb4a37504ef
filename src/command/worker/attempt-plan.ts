import { decideDispatch, type JobMessage, type WorkerRunStatus } from "../../contracts/index.js";
import type { OrderSnapshot } from "../../ledger/index.js";

/** Run attempt `attempt`; `reissue` first when a dead worker's attempt is still RUNNING in the ledger. */
export type RunningPlan = { action: "run"; attempt: number; retryCount: number; reissue: boolean };

export type AttemptPlan =
  | RunningPlan
  /** Nothing to do: the job is done with, the order untouched. */
  | { action: "skip"; reason: string }
  /** Not yet: the job is for an attempt the ledger has not reissued the order for; it goes back to the queue. */
  | { action: "wait"; reason: string }
  /** A dead worker's attempt with no retry left: the order fails. */
  | { action: "give_up"; reason: string };

/**
 * What a claimed job does, from the order's state in the ledger (the one record every worker shares) and seed
 * 001's retry-by-status table. Delivery is at least once, so the same job may come twice, or after its order
 * moved on: a finished, cancelled or failed order is left alone, an attempt older than the order's is stale,
 * and a RUNNING order is another worker's unless this is a redelivery, which the queue makes only when the
 * holder's lease ran out (a dead worker): its attempt is then reissued as the next one, within the retry cap.
 */
export function planAttempt(
  order: Pick<OrderSnapshot, "status" | "attempt">,
  job: Pick<JobMessage, "attempt" | "constraints">,
  deliveries: number,
  lastFailure: Extract<WorkerRunStatus, "failed" | "failed_contract"> | undefined,
): AttemptPlan {
  const policy = { maxRetries: job.constraints.max_retries };
  switch (order.status) {
    case "COMPLETED":
    case "CANCELLED":
      return { action: "skip", reason: `the order is already ${order.status}` };
    case "FAILED":
      return {
        action: "skip",
        reason: `the order FAILED at attempt ${order.attempt}; a retry comes as its own job`,
      };
    case "QUEUED":
    case "BLOCKED": {
      if (job.attempt < order.attempt)
        return {
          action: "skip",
          reason: `attempt ${job.attempt} is stale: the order is at attempt ${order.attempt}`,
        };
      const retries = job.attempt - 1;
      const existing =
        retries === 0 ? undefined : { status: lastFailure ?? "failed", retry_count: retries - 1 };
      const decision = decideDispatch(existing, policy);
      if (decision.action === "block") return { action: "skip", reason: decision.reason };
      return { action: "run", attempt: job.attempt, retryCount: decision.retry_count, reissue: false };
    }
    case "CLAIMED":
    case "RUNNING": {
      // A retry's job is queued before the batch that reissues the order lands, so a fast worker can see it
      // early; done with now, it would leave the order QUEUED for an attempt whose job is gone.
      if (job.attempt > order.attempt)
        return {
          action: "wait",
          reason: `attempt ${job.attempt} is not reissued yet: the order is at attempt ${order.attempt}`,
        };
      if (deliveries <= 1) {
        const decision = decideDispatch({ status: "running", retry_count: Math.max(0, order.attempt - 1) });
        return {
          action: "skip",
          reason: decision.action === "block" ? decision.reason : "running elsewhere",
        };
      }
      const decision = decideDispatch(
        { status: "failed", retry_count: Math.max(0, order.attempt - 1) },
        policy,
      );
      if (decision.action === "block")
        return {
          action: "give_up",
          reason: `failed: the worker of attempt ${order.attempt} stopped; ${decision.reason}`,
        };
      return { action: "run", attempt: order.attempt + 1, retryCount: decision.retry_count, reissue: true };
    }
  }
}
