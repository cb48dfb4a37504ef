import {
  eventScopeOf,
  type LedgerEventPayloads,
  type LedgerEventType,
  type OrderStatus,
} from "../contracts/index.js";
import { IllegalTransitionError, listStates } from "./errors.js";
import type { ProjectedEvent } from "./event-store.js";
import type { IntegrationState, OrderSnapshot, WorktreeState } from "./snapshot.js";

type Lifecycle = Extract<LedgerEventType, `ORDER_${string}`>;

/**
 * The order state machine (seed 000 order_status). COMPLETED and CANCELLED are final; FAILED is final unless
 * the duty officer reissues the order for another attempt or it is cancelled. ORDER_CREATED is handled apart
 * because it is the only event that may meet an absent order.
 */
const LIFECYCLE: Record<
  Exclude<Lifecycle, "ORDER_CREATED">,
  { from: readonly OrderStatus[]; to: OrderStatus }
> = {
  // Re-enqueueing a queued order is how a reissued order goes back to the queue, so QUEUED → QUEUED is legal.
  ORDER_ENQUEUED: { from: ["QUEUED"], to: "QUEUED" },
  ORDER_CLAIMED: { from: ["QUEUED"], to: "CLAIMED" },
  // Workers fed by the queue may start without a separate claim event; a blocked order resumes by starting.
  ORDER_STARTED: { from: ["QUEUED", "CLAIMED", "BLOCKED"], to: "RUNNING" },
  ORDER_BLOCKED: { from: ["CLAIMED", "RUNNING"], to: "BLOCKED" },
  ORDER_COMPLETED: { from: ["RUNNING"], to: "COMPLETED" },
  ORDER_FAILED: { from: ["QUEUED", "CLAIMED", "RUNNING", "BLOCKED"], to: "FAILED" },
  // The duty officer reissues stalled (claimed, running, blocked) and failed orders within retry caps.
  ORDER_REISSUED: { from: ["CLAIMED", "RUNNING", "BLOCKED", "FAILED"], to: "QUEUED" },
  ORDER_CANCELLED: { from: ["QUEUED", "CLAIMED", "RUNNING", "BLOCKED", "FAILED"], to: "CANCELLED" },
};

const WORKTREE: Record<string, { from: ReadonlyArray<WorktreeState | null>; to: WorktreeState }> = {
  // A worktree removed after a failed attempt may be created again for the reissued order.
  WORKTREE_CREATED: { from: [null, "REMOVED"], to: "CREATED" },
  WORKTREE_READY: { from: ["CREATED"], to: "READY" },
  WORKTREE_ARCHIVED: { from: ["CREATED", "READY"], to: "ARCHIVED" },
  WORKTREE_REMOVED: { from: ["CREATED", "READY", "ARCHIVED"], to: "REMOVED" },
};

/** Integration works on a COMPLETED order: ready → started → passed → integrated, or failed and retried. */
const INTEGRATION: Record<string, { from: ReadonlyArray<IntegrationState | null>; to: IntegrationState }> = {
  INTEGRATION_READY: { from: [null, "FAILED"], to: "READY" },
  // The integration service may be called without an observer having declared the order ready first.
  INTEGRATION_STARTED: { from: [null, "READY", "FAILED"], to: "STARTED" },
  INTEGRATION_PASSED: { from: ["STARTED"], to: "PASSED" },
  INTEGRATION_FAILED: { from: ["READY", "STARTED"], to: "FAILED" },
  INTEGRATED: { from: ["PASSED"], to: "INTEGRATED" },
};

/** Cleaning up after a cancelled order must still be recordable, so these two are not "after CANCELLED". */
const CLEANUP: ReadonlySet<LedgerEventType> = new Set(["WORKTREE_ARCHIVED", "WORKTREE_REMOVED"]);

/**
 * Incident and system events (escalations, recoveries, health) report on an order without acting on it, so
 * they are accepted in every state, a cancelled order included: an observer must be able to say what it saw.
 */
function isObservation(type: LedgerEventType): boolean {
  const scope = eventScopeOf(type);
  return scope === "incident" || scope === "system";
}

function payloadOf<T extends keyof LedgerEventPayloads>(
  event: ProjectedEvent,
  _type: T,
): LedgerEventPayloads[T] {
  // The contract validated this payload against its type's schema before the event reached the ledger.
  return event.payload as LedgerEventPayloads[T];
}

/**
 * The next snapshot of the order an event names, or an IllegalTransitionError naming the order, its state and
 * the event. Pure with the default `copy`: the input snapshot is never changed, and the same events in the same
 * order always give the same snapshot, which is what makes a rebuild byte-identical. It makes one copy and fills
 * it in, rather than spreading once per changed field: copies of a 19-field object are most of a reducer's cost.
 * A rebuild, which owns every snapshot it makes and throws them all away on a refusal, passes a `copy` that
 * returns the snapshot itself; every check reads the input before anything is written to `next`.
 */
export function applyOrderEvent(
  order: OrderSnapshot | undefined,
  event: ProjectedEvent,
  copy: (order: OrderSnapshot) => OrderSnapshot = copyOrder,
): OrderSnapshot {
  const orderId = event.order_id;
  if (orderId === null) throw new Error(`applyOrderEvent: event ${event.event_id} names no order`);

  if (event.type === "ORDER_CREATED") {
    if (order) throw refuse(event, order.status, "the order already exists");
    return createdOrder(orderId, event);
  }
  if (!order) throw refuse(event, "absent", "no ORDER_CREATED has been stored for it");
  if (event.run_id !== order.run_id)
    throw refuse(event, order.status, `the order belongs to run ${order.run_id}`);

  const next = copy(order);
  next.version = order.version + 1;
  next.position = event.position;
  next.updated_at = event.ts;
  if (isObservation(event.type)) return next;
  if (order.status === "CANCELLED" && !CLEANUP.has(event.type))
    throw refuse(event, order.status, "nothing but worktree cleanup happens to a cancelled order");

  if (event.type in LIFECYCLE) {
    applyLifecycle(order, next, event);
    return next;
  }
  const worktree = WORKTREE[event.type];
  if (worktree) {
    if (!worktree.from.includes(order.worktree_state))
      throw refuse(event, order.status, `its worktree is ${order.worktree_state ?? "not created"}`);
    next.worktree_state = worktree.to;
    if (event.type === "WORKTREE_CREATED") {
      const { worktree_path, branch } = payloadOf(event, "WORKTREE_CREATED");
      next.worktree_path = worktree_path;
      next.branch = branch;
    }
    return next;
  }
  const integration = INTEGRATION[event.type];
  if (integration) {
    if (order.status !== "COMPLETED")
      throw refuse(event, order.status, "only a COMPLETED order is integrated");
    if (!integration.from.includes(order.integration_state))
      throw refuse(event, order.status, `its integration is ${order.integration_state ?? "not started"}`);
    next.integration_state = integration.to;
    if (event.type === "INTEGRATED") next.commit_sha = payloadOf(event, "INTEGRATED").commit_sha;
    return next;
  }
  if (event.type === "ARTIFACT_WRITTEN") {
    const { path, type } = payloadOf(event, "ARTIFACT_WRITTEN");
    // Latest write last, one entry per path: the tail of the list is the latest artifact pointer.
    next.artifacts = order.artifacts.filter((a) => a.path !== path);
    next.artifacts.push(type === undefined ? { path } : { path, type });
    return next;
  }
  if (event.type === "AAR_WRITTEN") {
    next.aar_path = payloadOf(event, "AAR_WRITTEN").path;
    return next;
  }
  throw refuse(event, order.status, "this event type does not concern an order");
}

// A module-level function rather than a closure per call: the reducers run once per event on every append and
// rebuild, and must not allocate on their happy path.
function refuse(event: ProjectedEvent, state: string, reason: string): IllegalTransitionError {
  const subject = { entity: "order" as const, id: event.order_id ?? "(none)", state };
  return new IllegalTransitionError(subject, event.type, event.event_id, reason);
}

function createdOrder(orderId: string, event: ProjectedEvent): OrderSnapshot {
  if (event.run_id === null || event.theater_id === null)
    throw new Error(`applyOrderEvent: ORDER_CREATED ${event.event_id} has no run or theater`);
  return copyOrder({
    aar_path: null,
    artifacts: [],
    attempt: 0,
    branch: null,
    commit_sha: null,
    created_at: event.ts,
    finished_at: null,
    integration_state: null,
    order_id: orderId,
    position: event.position,
    run_id: event.run_id,
    started_at: null,
    status: "QUEUED",
    theater_id: event.theater_id,
    unit_id: event.unit_id,
    updated_at: event.ts,
    version: 1,
    worktree_path: null,
    worktree_state: null,
  });
}

/**
 * A copy of an order snapshot with its keys in canonical (sorted) order, so that storing it is one
 * JSON.stringify (snapshot-encoding.ts). Written out rather than spread: a snapshot decoded from the store
 * has its keys in the contract's order, and the copy puts them right. Snapshots hold only these fields.
 */
function copyOrder(o: OrderSnapshot): OrderSnapshot {
  return {
    aar_path: o.aar_path,
    artifacts: o.artifacts,
    attempt: o.attempt,
    branch: o.branch,
    commit_sha: o.commit_sha,
    created_at: o.created_at,
    finished_at: o.finished_at,
    integration_state: o.integration_state,
    order_id: o.order_id,
    position: o.position,
    run_id: o.run_id,
    started_at: o.started_at,
    status: o.status,
    theater_id: o.theater_id,
    unit_id: o.unit_id,
    updated_at: o.updated_at,
    version: o.version,
    worktree_path: o.worktree_path,
    worktree_state: o.worktree_state,
  };
}

/** Fills in `next`, the fresh copy of `order`, for an ORDER_* event other than ORDER_CREATED. */
function applyLifecycle(order: OrderSnapshot, next: OrderSnapshot, event: ProjectedEvent): void {
  const rule = LIFECYCLE[event.type as keyof typeof LIFECYCLE];
  if (!rule.from.includes(order.status))
    throw refuse(event, order.status, `it applies only to orders that are ${listStates(rule.from)}`);
  next.status = rule.to;
  if (event.unit_id !== null) next.unit_id = event.unit_id;
  switch (event.type) {
    case "ORDER_STARTED": {
      const { attempt } = payloadOf(event, "ORDER_STARTED");
      if (attempt < order.attempt)
        throw refuse(
          event,
          order.status,
          `attempt ${attempt} is older than the current attempt ${order.attempt}`,
        );
      next.attempt = attempt;
      next.started_at = event.ts;
      next.finished_at = null;
      return;
    }
    case "ORDER_REISSUED": {
      const { attempt } = payloadOf(event, "ORDER_REISSUED");
      if (attempt <= order.attempt)
        throw refuse(
          event,
          order.status,
          `a reissue needs an attempt above the current attempt ${order.attempt}`,
        );
      // The new attempt waits for a new claim: the previous unit and times no longer describe it.
      next.attempt = attempt;
      next.unit_id = event.unit_id;
      next.started_at = null;
      next.finished_at = null;
      return;
    }
    case "ORDER_COMPLETED":
    case "ORDER_FAILED":
    case "ORDER_CANCELLED":
      next.finished_at = event.ts;
      return;
  }
}
