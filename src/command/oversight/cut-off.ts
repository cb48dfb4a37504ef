import type { LedgerEventInput } from "../../contracts/index.js";
import { isOwnerAlive } from "../../core/index.js";
import type { EventStore, OrderSnapshot } from "../../ledger/index.js";

/** An integration left STARTED by a process that is gone: what to say about it, and the events that re-gate it. */
export interface CutOffIntegration {
  detail: string;
  events: LedgerEventInput[];
}

/**
 * Whether a completed order's STARTED integration was cut off: the process INTEGRATION_STARTED names is provably
 * gone (same host, that pid no longer the same process), or, when it cannot be checked (another host, or an event
 * that names none), the integration started more than `staleAfterMs` ago. A merge cut off in the middle leaves
 * main either before it or holding it; both are safe to integrate again, since integration records a main that
 * already holds the branch instead of merging it twice. So the answer is INTEGRATION_FAILED naming the cut, then
 * INTEGRATION_READY, appended together against the order's version: the run driver integrates it again.
 */
export async function cutOffIntegration(
  store: EventStore,
  order: OrderSnapshot,
  now: number,
  staleAfterMs: number,
): Promise<CutOffIntegration | undefined> {
  if (order.status !== "COMPLETED" || order.integration_state !== "STARTED") return undefined;
  const started = (
    await store.read({ orderId: order.order_id, types: ["INTEGRATION_STARTED"], limit: 10_000 })
  ).at(-1);
  if (!started) return undefined;
  const integrator = typeof started.payload.integrator === "string" ? started.payload.integrator : null;
  const alive = integrator === null ? undefined : isOwnerAlive(integrator);
  if (alive === true) return undefined;
  const age = now - Date.parse(started.ts);
  if (alive === undefined && !(age > staleAfterMs)) return undefined;
  const detail =
    alive === false
      ? `its integration (started ${Math.round(age / 1000)} s ago by ${integrator}) was cut off: that process is gone`
      : `its integration has been STARTED for more than ${Math.round(staleAfterMs / 1000)} s${integrator ? ` (by ${integrator}, on another host)` : ""}`;
  const base = {
    garrison_id: started.garrison_id,
    theater_id: order.theater_id,
    run_id: order.run_id,
    order_id: order.order_id,
    unit_id: null,
  };
  // Named after the INTEGRATION_STARTED they answer, so two patrols at once store them once.
  const key = `${order.order_id}.${started.position}`;
  return {
    detail,
    events: [
      {
        ...base,
        event_id: `patrol.${key}.integration_cut_off`,
        type: "INTEGRATION_FAILED",
        payload: { reason: detail, stage: "cut_off", integrator },
      },
      {
        ...base,
        event_id: `patrol.${key}.integration_ready_again`,
        type: "INTEGRATION_READY",
        payload: { checked: [], after: "cut_off" },
      },
    ],
  };
}
