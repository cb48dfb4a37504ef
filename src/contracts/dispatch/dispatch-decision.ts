import { z } from "zod";

/** The statuses a worker run moves through (seed 001): dispatched, gated, then retried or reviewed. */
export const WORKER_RUN_STATUSES = [
  "running",
  "review_requested",
  "failed_contract",
  "failed",
  "done",
] as const;

export type WorkerRunStatus = (typeof WORKER_RUN_STATUSES)[number];

export const workerRunStatusSchema = z.enum(WORKER_RUN_STATUSES, {
  error: `must be one of ${WORKER_RUN_STATUSES.join(", ")}`,
});

export type DispatchDecision =
  | { action: "start"; retry_count: 0 }
  | { action: "retry"; retry_count: number }
  | { action: "block"; reason: string };

export interface DispatchPolicy {
  /**
   * Retries allowed after the first attempt. The seed sets no limit, so none applies unless a caller asks;
   * with a limit, the attempt that would exceed it is blocked instead of retried.
   */
  maxRetries?: number;
}

const ACTIVE = {
  running: "is still running",
  review_requested: "is awaiting review",
  done: "is already done",
} as const;

/** Seed 001's retry-by-status table: what a new dispatch for a `run_id` does, given that run's current state. */
export function decideDispatch(
  existing: { status: WorkerRunStatus; retry_count: number } | undefined,
  policy: DispatchPolicy = {},
): DispatchDecision {
  if (existing === undefined) return { action: "start", retry_count: 0 };
  switch (existing.status) {
    case "failed":
    case "failed_contract": {
      const { maxRetries } = policy;
      if (maxRetries !== undefined && existing.retry_count >= maxRetries) {
        return {
          action: "block",
          reason: `retry limit reached: ${existing.retry_count} of ${maxRetries} retries used (last status ${existing.status})`,
        };
      }
      return { action: "retry", retry_count: existing.retry_count + 1 };
    }
    case "running":
    case "review_requested":
    case "done":
      return {
        action: "block",
        reason: `duplicate blocked: a run with this run_id ${ACTIVE[existing.status]}`,
      };
  }
}
