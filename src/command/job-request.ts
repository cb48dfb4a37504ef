import type { z } from "zod";
import { type JobMessage, jobMessageSchema, type workerJobRequestSchema } from "../contracts/index.js";
import { InvalidInputError, issuesFromZod, NotFoundError, ValidationError } from "../core/index.js";
import type { EventStore } from "../ledger/index.js";
import { DEFAULT_ORDER_DEFAULTS } from "./co/planned-order.js";
import { readOrderView } from "./co/run-views.js";
import type { EnqueueResult, JobQueue } from "./queue/job-queue.js";

type JobRequest = z.output<typeof workerJobRequestSchema>;

/**
 * POST /jobs (seed 000 §3.5 "If HTTP-controlled"): an operator's job for an order the ledger knows, queued as
 * the CO would queue it. The request names ids, worktree, profile and tool policy; the attempt is the order's
 * current one and the constraints are its plan's, so a job sent twice is queued once (the queue's key is order
 * and attempt) and never outlives the order's retry cap.
 */
export async function enqueueJobRequest(
  store: EventStore,
  queue: JobQueue,
  request: JobRequest,
): Promise<EnqueueResult & { job: JobMessage }> {
  const order = await readOrderView(store, request.order_id).catch((error: unknown) => {
    if (error instanceof NotFoundError)
      throw new InvalidInputError("$.order_id", `names no order: ${request.order_id}`);
    throw error;
  });
  if (order.run_id !== request.run_id)
    throw new InvalidInputError("$.run_id", `must be ${order.run_id}, the run of order ${order.order_id}`);
  if (order.theater_id !== request.theater_id)
    throw new InvalidInputError(
      "$.theater_id",
      `must be ${order.theater_id}, the theater of order ${order.order_id}`,
    );
  const constraints = order.plan?.constraints ?? DEFAULT_ORDER_DEFAULTS.constraints;
  const checked = jobMessageSchema.safeParse({
    ...request,
    job_type: "EXECUTE_ORDER",
    attempt: Math.max(1, order.attempt),
    constraints: { ...constraints, tool_policy: request.tool_policy },
  });
  if (!checked.success) throw new ValidationError("job", issuesFromZod(checked.error));
  return { ...(await queue.enqueue(checked.data)), job: checked.data };
}
