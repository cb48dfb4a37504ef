import { eventScopeOf, type LedgerEventType, type RunStatus } from "../contracts/index.js";
import { IllegalTransitionError } from "./errors.js";
import type { ProjectedEvent } from "./event-store.js";
import type { OrderSnapshot, RunSnapshot } from "./snapshot.js";

/** The run state machine (seed 000 run_status): OPEN until it completes, fails or is cancelled, all final. */
const FINISH: Partial<Record<LedgerEventType, RunStatus>> = {
  RUN_COMPLETED: "COMPLETE",
  RUN_FAILED: "FAILED",
  RUN_CANCELLED: "CANCELLED",
};

/**
 * What may still happen under a cancelled run: winding its orders down and cleaning their worktrees.
 * Everything else that acts on the run or its orders is refused.
 */
const WIND_DOWN: ReadonlySet<LedgerEventType> = new Set([
  "ORDER_CANCELLED",
  "ORDER_FAILED",
  "WORKTREE_ARCHIVED",
  "WORKTREE_REMOVED",
]);

function text(value: unknown): string | null {
  return typeof value === "string" && value.length > 0 ? value : null;
}

/** Files an order's status in a run's order list, returning the list to keep (the same one when unchanged). */
export type FileOrder = (
  orders: RunSnapshot["orders"],
  order: Pick<OrderSnapshot, "order_id" | "status">,
) => RunSnapshot["orders"];

/**
 * The next snapshot of the run an event names, or an IllegalTransitionError naming the run, its state and the
 * event. `order` is the next snapshot of the order the event names, if any: its status is filed in the run's
 * order list (appended when the order is new) by `fileOrder`, last, once every check has passed. Pure with the
 * default `fileOrder` and `copy`, which copy the list and the run; a SnapshotSet passes a `fileOrder` that
 * updates the lists it owns in place, and a rebuild's set a `copy` that returns the run itself (see
 * applyOrderEvent).
 */
export function applyRunEvent(
  run: RunSnapshot | undefined,
  event: ProjectedEvent,
  order?: Pick<OrderSnapshot, "order_id" | "status">,
  fileOrder: FileOrder = withOrder,
  copy: (run: RunSnapshot) => RunSnapshot = copyRun,
): RunSnapshot {
  const runId = event.run_id;
  if (runId === null) throw new Error(`applyRunEvent: event ${event.event_id} names no run`);

  if (event.type === "RUN_CREATED") {
    if (run) throw refuse(event, run.status, "the run already exists");
    if (event.theater_id === null)
      throw new Error(`applyRunEvent: RUN_CREATED ${event.event_id} has no theater`);
    return {
      created_at: event.ts,
      finished_at: null,
      objective: text(event.payload.objective),
      orders: [],
      position: event.position,
      run_id: runId,
      status: "OPEN",
      summary: null,
      theater_id: event.theater_id,
      updated_at: event.ts,
      version: 1,
    };
  }
  if (!run) throw refuse(event, "absent", "no RUN_CREATED has been stored for it");
  if (event.theater_id !== run.theater_id)
    throw refuse(event, run.status, `the run belongs to theater ${run.theater_id}, not ${event.theater_id}`);

  const next = copy(run);
  next.version = run.version + 1;
  next.position = event.position;
  next.updated_at = event.ts;
  const scope = eventScopeOf(event.type);
  // Incident and system events report on a run without acting on it; they are accepted in every state.
  if (scope === "incident" || scope === "system") return next;
  if (run.status === "CANCELLED" && !WIND_DOWN.has(event.type))
    throw refuse(event, run.status, "a cancelled run only winds its orders down");

  const finish = FINISH[event.type];
  if (finish) {
    if (run.status !== "OPEN") throw refuse(event, run.status, "only an OPEN run can finish");
    next.status = finish;
    next.summary = text(event.payload.summary) ?? run.summary;
    next.finished_at = event.ts;
  } else if (event.type === "RUN_UPDATED") {
    next.objective = text(event.payload.objective) ?? run.objective;
    next.summary = text(event.payload.summary) ?? run.summary;
  } else if (event.type === "ORDER_CREATED" && run.status !== "OPEN") {
    throw refuse(event, run.status, "a finished run takes no new orders");
  }
  if (order) next.orders = fileOrder(run.orders, order);
  return next;
}

/**
 * A copy of a run snapshot with its keys in canonical (sorted) order, as the one RUN_CREATED builds, so that
 * storing it is one JSON.stringify (snapshot-encoding.ts); a run decoded from the store has its keys in the
 * contract's order. Snapshots hold only these fields.
 */
function copyRun(r: RunSnapshot): RunSnapshot {
  return {
    created_at: r.created_at,
    finished_at: r.finished_at,
    objective: r.objective,
    orders: r.orders,
    position: r.position,
    run_id: r.run_id,
    status: r.status,
    summary: r.summary,
    theater_id: r.theater_id,
    updated_at: r.updated_at,
    version: r.version,
  };
}

function refuse(event: ProjectedEvent, state: string, reason: string): IllegalTransitionError {
  const subject = { entity: "run" as const, id: event.run_id ?? "(none)", state };
  return new IllegalTransitionError(subject, event.type, event.event_id, reason);
}

/** The order list with one order's status filed, as a new list; the same list when nothing changed. */
export function withOrder(
  orders: RunSnapshot["orders"],
  order: Pick<OrderSnapshot, "order_id" | "status">,
): RunSnapshot["orders"] {
  const index = orders.findIndex((o) => o.order_id === order.order_id);
  if (index >= 0 && orders[index]?.status === order.status) return orders;
  const next = [...orders];
  const entry = { order_id: order.order_id, status: order.status };
  if (index >= 0) next[index] = entry;
  else next.push(entry);
  return next;
}
