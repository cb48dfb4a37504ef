import type { LedgerEventInput } from "../../src/contracts/index.js";
import { newId } from "../../src/core/index.js";
import type { EventStore } from "../../src/ledger/index.js";

/** One order of a synthetic history: who ran it, how it ended, how long its last attempt took. */
export interface SyntheticOrder {
  type: string;
  profile: string;
  model?: string;
  outcome: "completed" | "failed";
  /** Claim → completed of the last attempt (completed orders). */
  latencyMs?: number;
  /** Failed attempts before the last one, each reissued. */
  retries?: number;
}

let clock = Date.parse("2026-03-01T00:00:00.000Z");
const tick = (ms = 1000) => {
  clock += ms;
  return new Date(clock).toISOString();
};

/**
 * Appends one run and its orders' lives as a worker and the duty officer would: created, enqueued, claimed,
 * started, then failed and reissued per retry, then completed or failed — in one batch, with timestamps that
 * give each completed order exactly its latency.
 */
export async function appendSyntheticRun(
  store: EventStore,
  orders: readonly SyntheticOrder[],
  theaterId = "demo",
): Promise<{ runId: string; orderIds: string[] }> {
  const runId = newId();
  const base = { garrison_id: "local", theater_id: theaterId, run_id: runId };
  const events: LedgerEventInput[] = [
    { ...base, type: "RUN_CREATED", ts: tick(), payload: { objective: "synthetic", user_id: "u_1" } },
  ];
  const orderIds: string[] = [];
  orders.forEach((order, index) => {
    const orderId = newId();
    orderIds.push(orderId);
    const at = (type: LedgerEventInput["type"], payload: Record<string, unknown> = {}, ms = 1000) =>
      events.push({ ...base, order_id: orderId, type, ts: tick(ms), payload });
    at("ORDER_CREATED", {
      key: `o${index}`,
      type: order.type,
      objective: `${order.type} work`,
      inputs: {},
      depends_on: [],
      acceptance_commands: [],
      constraints: {
        budget_seconds: 600,
        max_retries: 3,
        tool_policy: { network: false, fs_allowlist: ["./"] },
      },
      profile: { name: order.profile, model: order.model ?? `${order.profile}-model` },
    });
    at("ORDER_ENQUEUED");
    let attempt = 1;
    for (let r = 0; r < (order.retries ?? 0); r++) {
      at("ORDER_CLAIMED");
      at("ORDER_STARTED", { attempt });
      at("ORDER_FAILED", { reason: "attempt failed" });
      attempt += 1;
      at("ORDER_REISSUED", { attempt });
    }
    at("ORDER_CLAIMED");
    at("ORDER_STARTED", { attempt }, 0);
    if (order.outcome === "completed") at("ORDER_COMPLETED", {}, order.latencyMs ?? 1000);
    else at("ORDER_FAILED", { reason: "gave up" });
  });
  await store.appendBatch(events);
  return { runId, orderIds };
}

/** A person's rating of a run, as POST /api/runs/{id}/feedback records it. */
export async function appendRating(
  store: EventStore,
  runId: string,
  rating: "down" | "up",
  theaterId = "demo",
): Promise<void> {
  await store.append({
    type: "RUN_UPDATED",
    garrison_id: "local",
    theater_id: theaterId,
    run_id: runId,
    ts: tick(),
    payload: { feedback: { rating, by: "u_1" } },
  });
}
