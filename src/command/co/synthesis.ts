import type { EventStore, OrderSnapshot } from "../../ledger/index.js";
import type { OrderOutcome, SynthesisRequest } from "./co-services.js";
import type { PlannedOrder } from "./planned-order.js";

/** An order's standing when the CO is asked to conclude its run. */
export type Standing =
  | { kind: "integrated" }
  | { kind: "failed" | "cancelled"; reason: string }
  /** Waits on an order that failed or was cancelled: it can never run, and is cancelled when the run concludes. */
  | { kind: "stranded"; reason: string }
  | { kind: "pending"; state: string };

/**
 * Where every order of a run stands. An order is over when it is INTEGRATED, CANCELLED, FAILED with no retry left
 * (attempts = max_retries + 1, seed 000 §3.8 "Reissue orders within retry caps"), or COMPLETED with a failed
 * integration, which the ledger lets neither fail nor cancel. A QUEUED order that depends on one that is over
 * without being integrated is stranded. Everything else is pending: a worker or the duty officer may still move it.
 */
export async function standingsOf(
  store: EventStore,
  runId: string,
  snapshots: ReadonlyMap<string, OrderSnapshot>,
  planned: ReadonlyMap<string, PlannedOrder>,
): Promise<Map<string, Standing>> {
  const reasons = await lastReasons(store, runId);
  const standings = new Map<string, Standing>();
  for (const [id, order] of snapshots) {
    const cap = (planned.get(id)?.constraints.max_retries ?? 0) + 1;
    const reason = reasons.get(id);
    if (order.integration_state === "INTEGRATED") standings.set(id, { kind: "integrated" });
    else if (order.status === "CANCELLED")
      standings.set(id, { kind: "cancelled", reason: reason ?? "cancelled" });
    else if (order.status === "FAILED" && Math.max(1, order.attempt) >= cap)
      standings.set(id, {
        kind: "failed",
        reason: reason ?? `failed after ${Math.max(1, order.attempt)} attempts`,
      });
    else if (order.status === "COMPLETED" && order.integration_state === "FAILED")
      standings.set(id, { kind: "failed", reason: reason ?? "integration failed" });
    else standings.set(id, { kind: "pending", state: order.integration_state ?? order.status });
  }
  strand(standings, snapshots, planned);
  return standings;
}

/** Marks stranded orders, repeating until nothing changes so that a chain of dependents is stranded whole. */
function strand(
  standings: Map<string, Standing>,
  snapshots: ReadonlyMap<string, OrderSnapshot>,
  planned: ReadonlyMap<string, PlannedOrder>,
): void {
  for (let changed = true; changed; ) {
    changed = false;
    for (const [id, standing] of standings) {
      if (standing.kind !== "pending" || snapshots.get(id)?.status !== "QUEUED") continue;
      const dead = planned.get(id)?.depends_on.find((dep) => {
        const kind = standings.get(dep)?.kind;
        return kind === "failed" || kind === "cancelled" || kind === "stranded";
      });
      if (dead === undefined) continue;
      const key = planned.get(dead)?.key ?? dead;
      standings.set(id, { kind: "stranded", reason: `its dependency ${key} did not complete` });
      changed = true;
    }
  }
}

/** The reason of each order's latest ORDER_FAILED, ORDER_CANCELLED or INTEGRATION_FAILED that gave one. */
async function lastReasons(store: EventStore, runId: string): Promise<Map<string, string>> {
  const types = ["ORDER_FAILED", "ORDER_CANCELLED", "INTEGRATION_FAILED"] as const;
  const events = await store.read({ runId, types, limit: 10_000 });
  const reasons = new Map<string, string>();
  for (const e of events) {
    const reason = e.payload.reason;
    if (e.order_id !== null && typeof reason === "string" && reason.length > 0)
      reasons.set(e.order_id, reason);
  }
  return reasons;
}

/** The outcome synthesis reports for an order that is over; stranded orders are reported as cancelled. */
export function outcomeOf(orderId: string, plan: PlannedOrder | undefined, standing: Standing): OrderOutcome {
  const base = {
    order_id: orderId,
    key: plan?.key ?? orderId,
    type: plan?.type ?? "unknown",
    objective: plan?.objective ?? "(not planned by the CO)",
  };
  if (standing.kind === "integrated") return { ...base, outcome: "integrated" };
  if (standing.kind === "failed") return { ...base, outcome: "failed", reason: standing.reason };
  return {
    ...base,
    outcome: "cancelled",
    reason: standing.kind === "pending" ? standing.state : standing.reason,
  };
}

/** The reply when no synthesizer is configured: the objective, the tally, and one line per order. */
export function composeReply(input: SynthesisRequest): string {
  const done = input.orders.filter((o) => o.outcome === "integrated").length;
  const total = input.orders.length;
  const head =
    input.status === "COMPLETE"
      ? `Done: ${done} of ${total} orders completed and integrated.`
      : `The run did not complete: ${done} of ${total} orders were integrated.`;
  const lines = input.orders.map((o) => {
    const artifacts = o.aar?.artifacts.map((a) => a.path) ?? [];
    const files = artifacts.length > 0 ? ` (artifacts: ${artifacts.join(", ")})` : "";
    if (o.outcome !== "integrated") return `- ${o.key}: ${o.outcome}: ${o.reason ?? "no reason given"}`;
    return `- ${o.key}: ${o.aar?.summary ?? "integrated; no after-action report was found"}${files}`;
  });
  return [`Objective: ${input.objective}`, head, ...lines].join("\n");
}
