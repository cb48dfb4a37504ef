import type { JobMessage, LedgerEventInput } from "../../contracts/index.js";
import { ConflictError } from "../../core/index.js";
import {
  type EventStore,
  type OrderSnapshot,
  type StreamExpectation,
  StreamVersionConflictError,
} from "../../ledger/index.js";
import { cancelRun } from "../co/cancel-run.js";
import type { JobQueue } from "../queue/job-queue.js";
import { currentAttempt } from "./attempt-guard.js";
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

/** What closing an attempt did: recorded it, recorded it and queued the next attempt, or refused a stale one. */
export type CloseResult = "closed" | "retried" | "superseded";

/** Another writer appending to the order (an observer, a vault event) between our read and our batch: retried. */
const CLOSE_TRIES = 5;

/**
 * Appends the attempt's closing events in one batch, only while `attempt` is still the order's current attempt:
 * the batch expects the order's version as read with the attempt checked, so a reissue (by the duty officer, or a
 * worker taking over after a lease ran out) landing first makes it refuse the stale result, and `superseded` is
 * returned with nothing appended or enqueued. A failure within the retry cap is enqueued as the next attempt and
 * the batch ends with its ORDER_REISSUED and ORDER_ENQUEUED; the job goes in first (keyed by order and attempt,
 * so a repeat or a duty officer's reissue of the same attempt queues it once), so no QUEUED order lacks its job.
 * An attempt a spend cap refused is not retried: the same batch stops the run (stopRun).
 */
export async function closeAttempt(
  services: { store: EventStore; queue: JobQueue },
  job: JobMessage,
  base: EventBase,
  attempt: number,
  run: AttemptRun,
): Promise<CloseResult> {
  const closing: LedgerEventInput[] =
    run.events.length > 0
      ? [...run.events]
      : [{ ...base, type: "ORDER_FAILED", payload: { reason: failureReason(run.outcome) } }];
  const next = decideAfterAttempt(run.outcome, attempt, job.constraints.max_retries);
  for (let tries = 1; ; tries++) {
    const order = await currentAttempt(services.store, base.order_id, attempt);
    if (!order) return "superseded";
    if (next.action === "stop_run") {
      await stopRun(services.store, base, closing, next.reason);
      return "closed";
    }
    const events = [...closing];
    if (next.action === "retry") {
      const retry = { ...job, attempt: attempt + 1 };
      const { id } = await services.queue.enqueue(retry);
      events.push(
        {
          ...base,
          type: "ORDER_REISSUED",
          payload: { attempt: retry.attempt, reason: failureReason(run.outcome) },
        },
        {
          ...base,
          type: "ORDER_ENQUEUED",
          payload: { attempt: retry.attempt, job_id: id, queue: services.queue.kind },
        },
      );
    }
    try {
      await services.store.appendBatch(events, {
        expect: [{ kind: "order", id: order.order_id, version: order.version }],
      });
      return next.action === "retry" ? "retried" : "closed";
    } catch (error) {
      if (!(error instanceof StreamVersionConflictError) || tries >= CLOSE_TRIES) throw error;
    }
  }
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
