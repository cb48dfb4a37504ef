import type { LedgerEventInput } from "../../contracts/index.js";
import {
  EventIdConflictError,
  type EventStore,
  type OrderSnapshot,
  StreamVersionConflictError,
} from "../../ledger/index.js";
import { type DispatchContext, jobFor } from "../co/dispatch-run.js";
import type { PlannedOrder } from "../co/planned-order.js";

/**
 * A recovery's events are named by order and the attempt it recovers, so two duty officers finishing the same
 * recovery store its RECOVERY_COMPLETED once.
 */
const recoveryId = (orderId: string, attempt: number, step: "started" | "completed") =>
  `recovery.${orderId}.${attempt}.${step}`;

function baseOf(ctx: DispatchContext, order: OrderSnapshot) {
  return {
    garrison_id: ctx.garrisonId,
    theater_id: order.theater_id,
    run_id: order.run_id,
    order_id: order.order_id,
    unit_id: null,
  };
}

/**
 * Reissues a stalled order as its next attempt (seed 000 §3.8 "Reissue orders within retry caps"):
 * RECOVERY_STARTED and ORDER_REISSUED in one batch that expects the order's version as the caller read it, so of
 * two duty officers, or a duty officer and a worker, one moves the order and the other appends nothing. The
 * caller has checked the retry cap. Returns how many events this call stored: 0 when it did not reissue it.
 */
export async function reissueOrder(
  ctx: DispatchContext,
  order: OrderSnapshot,
  plan: PlannedOrder,
  reason: string,
): Promise<number> {
  const base = baseOf(ctx, order);
  try {
    await ctx.store.appendBatch(
      [
        {
          ...base,
          event_id: recoveryId(order.order_id, order.attempt, "started"),
          type: "RECOVERY_STARTED",
          payload: { attempt: order.attempt, reason },
        },
        { ...base, type: "ORDER_REISSUED", payload: { attempt: order.attempt + 1, reason } },
      ],
      { expect: [{ kind: "order", id: order.order_id, version: order.version }] },
    );
  } catch (error) {
    if (error instanceof StreamVersionConflictError || error instanceof EventIdConflictError) return 0;
    throw error;
  }
  return 2 + (await completeRecovery(ctx, order.order_id, order.attempt, plan));
}

/**
 * Puts a reissued order back in the queue and records RECOVERY_COMPLETED. Safe to repeat, which is how a
 * recovery cut short (a crash between the reissue and the enqueue) is finished by the next tick: the queue keeps
 * one job per order and attempt, ORDER_ENQUEUED expects the order's version, and the completion's id is fixed.
 * Returns how many events it stored.
 */
export async function completeRecovery(
  ctx: DispatchContext,
  orderId: string,
  recovered: number,
  plan: PlannedOrder,
): Promise<number> {
  const order = await ctx.store.getOrder(orderId);
  if (!order) return 0;
  const next = recovered + 1;
  const completed: LedgerEventInput = {
    ...baseOf(ctx, order),
    event_id: recoveryId(orderId, recovered, "completed"),
    type: "RECOVERY_COMPLETED",
    payload: { attempt: next },
  };
  if (order.status === "QUEUED" && order.attempt === next && !(await isEnqueued(ctx.store, orderId, next))) {
    const job = jobFor(ctx, order, plan, next);
    const { id } = await ctx.queue.enqueue(job);
    const enqueued: LedgerEventInput = {
      ...baseOf(ctx, order),
      unit_id: job.unit_id,
      type: "ORDER_ENQUEUED",
      payload: { attempt: next, job_id: id, queue: ctx.queue.kind },
    };
    try {
      await ctx.store.appendBatch([enqueued, completed], {
        expect: [{ kind: "order", id: orderId, version: order.version }],
      });
      return 2;
    } catch (error) {
      // Another writer moved the order first (a dispatch queued the same job): the recovery is still complete.
      if (!(error instanceof StreamVersionConflictError)) throw error;
    }
  }
  try {
    return (await ctx.store.append(completed)).duplicate ? 0 : 1;
  } catch (error) {
    if (error instanceof EventIdConflictError) return 0;
    throw error;
  }
}

/** The attempts of an order whose recovery started and never completed. */
export async function unfinishedRecoveries(store: EventStore, orderId: string): Promise<number[]> {
  const events = await store.read({
    orderId,
    types: ["RECOVERY_STARTED", "RECOVERY_COMPLETED"],
    limit: 10_000,
  });
  const started = new Set<number>();
  for (const event of events) {
    const attempt = Number(event.payload.attempt);
    if (event.type === "RECOVERY_STARTED") started.add(attempt);
    else started.delete(attempt - 1);
  }
  return [...started];
}

async function isEnqueued(store: EventStore, orderId: string, attempt: number): Promise<boolean> {
  const events = await store.read({ orderId, types: ["ORDER_ENQUEUED"], limit: 10_000 });
  return events.some((e) => e.payload.attempt === attempt);
}
