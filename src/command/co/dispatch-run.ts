import { type DispatchData, type JobMessage, jobMessageSchema } from "../../contracts/index.js";
import { issuesFromZod, ValidationError } from "../../core/index.js";
import {
  type EventStore,
  type OrderSnapshot,
  type RunSnapshot,
  StreamVersionConflictError,
} from "../../ledger/index.js";
import type { JobQueue } from "../queue/job-queue.js";
import { type PlannedOrder, readPlannedOrders } from "./planned-order.js";
import { orderSnapshots } from "./run-orders.js";

export interface DispatchContext {
  store: EventStore;
  queue: JobQueue;
  garrisonId: string;
  theaterWorktreePath(theaterId: string, orderId: string): string;
}

/** Another writer appending to the order between our read and our append is retried this many times. */
const TRIES = 3;

/**
 * Enqueues every QUEUED order of an OPEN run whose dependencies are all INTEGRATED and whose current attempt is
 * not enqueued yet (seed 000 §3.2 "Enqueues orders to worker runtime", §4 job message), each followed by one
 * ORDER_ENQUEUED carrying the attempt. Safe to repeat and to run from two places at once: the queue keeps one
 * job per order and attempt, and the ORDER_ENQUEUED append expects the order's version, so a second dispatcher
 * sees the first one's event and appends none.
 */
export async function dispatchRun(ctx: DispatchContext, run: RunSnapshot): Promise<DispatchData> {
  const planned = await readPlannedOrders(ctx.store, run.run_id);
  const snapshots = await orderSnapshots(ctx.store, run);
  const enqueued: string[] = [];
  const waiting: string[] = [];
  for (const { order_id, status } of run.orders) {
    const plan = planned.get(order_id);
    if (status !== "QUEUED" || !plan) continue;
    const ready = plan.depends_on.every((dep) => snapshots.get(dep)?.integration_state === "INTEGRATED");
    if (!ready) waiting.push(order_id);
    else if (await enqueueOrder(ctx, order_id, plan)) enqueued.push(order_id);
  }
  return { run_id: run.run_id, enqueued, waiting };
}

/** True when this call enqueued the order's current attempt; false when it was already enqueued or moved on. */
async function enqueueOrder(ctx: DispatchContext, orderId: string, plan: PlannedOrder): Promise<boolean> {
  for (let tries = 1; ; tries++) {
    const order = await ctx.store.getOrder(orderId);
    if (order?.status !== "QUEUED") return false;
    // A new order has attempt 0 until it starts; a reissued one is QUEUED at the attempt the duty officer set.
    const attempt = Math.max(1, order.attempt);
    if (await isEnqueued(ctx.store, orderId, attempt)) return false;
    const job = jobFor(ctx, order, plan, attempt);
    const { id } = await ctx.queue.enqueue(job);
    try {
      await ctx.store.append(
        {
          type: "ORDER_ENQUEUED",
          garrison_id: ctx.garrisonId,
          theater_id: order.theater_id,
          run_id: order.run_id,
          order_id: orderId,
          unit_id: job.unit_id,
          payload: { attempt, job_id: id, queue: ctx.queue.kind },
        },
        { expect: [{ kind: "order", id: orderId, version: order.version }] },
      );
      return true;
    } catch (error) {
      if (!(error instanceof StreamVersionConflictError) || tries >= TRIES) throw error;
    }
  }
}

async function isEnqueued(store: EventStore, orderId: string, attempt: number): Promise<boolean> {
  const events = await store.read({ orderId, types: ["ORDER_ENQUEUED"], limit: 10_000 });
  return events.some((e) => e.payload.attempt === attempt);
}

/**
 * The job for one attempt (seed 000 §4). Orders never get network (§2, §3.5 `"network": false`), whatever their
 * stored policy says. Beside the seed's keys the job carries what order.json needs (type, objective, inputs) and
 * the acceptance commands, so a worker can act on the job alone.
 */
export function jobFor(
  ctx: DispatchContext,
  order: OrderSnapshot,
  plan: PlannedOrder,
  attempt: number,
): JobMessage {
  const job = {
    job_type: "EXECUTE_ORDER",
    order_id: order.order_id,
    run_id: order.run_id,
    theater_id: order.theater_id,
    unit_id: `assault_${order.order_id}`,
    worktree_path: ctx.theaterWorktreePath(order.theater_id, order.order_id),
    attempt,
    profile: plan.profile,
    constraints: plan.constraints,
    tool_policy: { ...plan.constraints.tool_policy, network: false },
    type: plan.type,
    objective: plan.objective,
    inputs: plan.inputs,
    acceptance_commands: plan.acceptance_commands,
  };
  const result = jobMessageSchema.safeParse(job);
  if (!result.success)
    throw new ValidationError(`job message of order ${order.order_id}`, issuesFromZod(result.error));
  return result.data;
}
