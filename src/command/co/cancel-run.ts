import type { LedgerEventInput } from "../../contracts/index.js";
import { ConflictError, jsonPath, NotFoundError, ValidationError } from "../../core/index.js";
import { type EventStore, StreamVersionConflictError } from "../../ledger/index.js";
import { orderSnapshots } from "./run-orders.js";

/** Orders that are not over yet: the ones cancelling a run cancels (COMPLETED ones are left to integration). */
const CANCELLABLE = new Set(["QUEUED", "CLAIMED", "RUNNING", "BLOCKED", "FAILED"]);

/** A worker appending to the run between our read and our batch is retried this many times. */
const TRIES = 3;

/**
 * Cancels an OPEN run and every order of it that is not over, as one batch that expects the run's version, so an
 * order that moves meanwhile is seen on the next try instead of breaking the batch. Cancelling a cancelled run
 * cancels nothing more. `lead` goes first in the same batch (a worker's closing events, when a spend cap stops
 * the run), so what led to the cancel is recorded with it or not at all.
 */
export async function cancelRun(
  store: EventStore,
  garrisonId: string,
  runId: string,
  reason: string,
  lead: readonly LedgerEventInput[] = [],
): Promise<{ run_id: string; cancelled: string[] }> {
  if (typeof reason !== "string" || !/\S/.test(reason))
    throw new ValidationError("cancel", [
      { path: jsonPath(["reason"]), message: "must be a non-empty string", code: "custom" },
    ]);
  for (let tries = 1; ; tries++) {
    const run = await store.getRun(runId);
    if (!run) throw new NotFoundError("run", runId);
    if (run.status === "CANCELLED") return { run_id: runId, cancelled: [] };
    if (run.status !== "OPEN")
      throw new ConflictError(`run ${runId} is ${run.status}: only an OPEN run is cancelled`);
    const snapshots = await orderSnapshots(store, run);
    const orders = [...snapshots.values()].filter((o) => CANCELLABLE.has(o.status)).map((o) => o.order_id);
    const ids = { garrison_id: garrisonId, theater_id: run.theater_id, run_id: runId };
    const events: LedgerEventInput[] = [
      ...lead,
      { type: "RUN_CANCELLED", ...ids, payload: { reason } },
      ...orders.map((orderId) => ({
        type: "ORDER_CANCELLED" as const,
        ...ids,
        order_id: orderId,
        payload: { reason },
      })),
    ];
    try {
      await store.appendBatch(events, { expect: [{ kind: "run", id: runId, version: run.version }] });
      return { run_id: runId, cancelled: orders };
    } catch (error) {
      if (!(error instanceof StreamVersionConflictError) || tries >= TRIES) throw error;
    }
  }
}
