import type { JobMessage, LedgerEventInput } from "../../contracts/index.js";
import { ConflictError } from "../../core/index.js";
import type { EventStore, OrderSnapshot, StreamExpectation } from "../../ledger/index.js";
import { cancelRun } from "../co/cancel-run.js";
import type { JobQueue } from "../queue/job-queue.js";
import type { RunningPlan } from "./attempt-plan.js";
import { type EventBase, failureReason } from "./attempt-report.js";
import type { AttemptRun } from "./run-attempt.js";
import { decideAfterAttempt } from "./spend-stop.js";

/** The ledger's side of an attempt: how it starts, how it ends, and how the last one failed. */

export function eventBaseOf(order: OrderSnapshot, job: JobMessage, garrisonId: string): EventBase {
  return {
    garrison_id: garrisonId,
    theater_id: order.theater_id,
    run_id: order.run_id,
    order_id: order.order_id,
    unit_id: job.unit_id,
  };
}

/**
 * ORDER_STARTED (after ORDER_REISSUED when a dead worker's attempt is taken over), appended only if the order
 * is still at the version the plan was made from: of two workers holding copies of one job, one starts it.
 */
export async function startAttempt(
  store: EventStore,
  base: EventBase,
  plan: RunningPlan,
  workerId: string,
  expect: StreamExpectation[],
): Promise<void> {
  const reissue: LedgerEventInput[] = plan.reissue
    ? [
        {
          ...base,
          type: "ORDER_REISSUED",
          payload: { attempt: plan.attempt, reason: "the worker holding it stopped" },
        },
      ]
    : [];
  await store.appendBatch(
    [...reissue, { ...base, type: "ORDER_STARTED", payload: { attempt: plan.attempt, worker_id: workerId } }],
    { expect },
  );
}

/**
 * Appends the attempt's closing events in one batch; a failure within the retry cap is enqueued as the next
 * attempt, and the batch ends with its ORDER_REISSUED and ORDER_ENQUEUED. Returns whether it was. An attempt a
 * spend cap refused is not retried: the same batch stops the run (stopRun).
 */
export async function closeAttempt(
  services: { store: EventStore; queue: JobQueue },
  job: JobMessage,
  base: EventBase,
  attempt: number,
  run: AttemptRun,
): Promise<boolean> {
  const events: LedgerEventInput[] =
    run.events.length > 0
      ? [...run.events]
      : [{ ...base, type: "ORDER_FAILED", payload: { reason: failureReason(run.outcome) } }];
  const next = decideAfterAttempt(run.outcome, attempt, job.constraints.max_retries);
  if (next.action === "stop_run") {
    await stopRun(services.store, base, events, next.reason);
    return false;
  }
  const retry = next.action === "retry";
  if (retry) {
    const next = { ...job, attempt: attempt + 1 };
    const { id } = await services.queue.enqueue(next);
    events.push(
      {
        ...base,
        type: "ORDER_REISSUED",
        payload: { attempt: next.attempt, reason: failureReason(run.outcome) },
      },
      {
        ...base,
        type: "ORDER_ENQUEUED",
        payload: { attempt: next.attempt, job_id: id, queue: services.queue.kind },
      },
    );
  }
  await services.store.appendBatch(events);
  return retry;
}

/**
 * The attempt's closing events, then RUN_CANCELLED and ORDER_CANCELLED for every order of the run not over (this
 * one included), all with the reason, as one batch: no order of the run starts, and none is merged, after it (a
 * cancelled run takes no integration). A run already concluded takes the closing events alone; one already
 * cancelled cancelled this order with it, so they have nothing left to record.
 */
async function stopRun(
  store: EventStore,
  base: EventBase,
  closing: LedgerEventInput[],
  reason: string,
): Promise<void> {
  try {
    await cancelRun(store, base.garrison_id, base.run_id, reason, closing);
  } catch (error) {
    if (!(error instanceof ConflictError)) throw error;
    await store.appendBatch(closing);
  }
}

/** How the order's last attempt failed, for seed 001's retry rule (failed and failed_contract both retry). */
export async function lastFailure(store: EventStore, orderId: string) {
  const failures = await store.read({ orderId, types: ["ORDER_FAILED"], limit: 10_000 });
  const reason = failures.at(-1)?.payload.reason;
  if (reason === undefined) return undefined;
  return String(reason).startsWith("failed_contract") ? ("failed_contract" as const) : ("failed" as const);
}
