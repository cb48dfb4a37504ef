import type { LedgerEventInput } from "../../src/contracts/index.js";

/** Small readable builders for ledger events in tests: `ev("ORDER_STARTED", "r1", "o1", { attempt: 1 })`. */
export function ev(
  type: LedgerEventInput["type"],
  runId: string | null,
  orderId: string | null = null,
  payload: Record<string, unknown> = {},
  extra: Partial<LedgerEventInput> = {},
): LedgerEventInput {
  const needsUnit = type === "ORDER_CLAIMED" || type === "ORDER CLAIMED" || type === "ORDER_STARTED";
  return {
    type,
    garrison_id: "local",
    theater_id: runId === null ? null : "demo",
    run_id: runId,
    order_id: orderId,
    unit_id: needsUnit ? "assault_1" : null,
    payload,
    ...extra,
  };
}

export const runCreated = (runId: string, objective = "Summarize the input") =>
  ev("RUN_CREATED", runId, null, { objective });

export const orderCreated = (runId: string, orderId: string) => ev("ORDER_CREATED", runId, orderId);

/** What a worker reports for one successful attempt, as one batch (seed 000 §3.5). */
export function workerBatch(runId: string, orderId: string, attempt = 1): LedgerEventInput[] {
  return [
    ev("ORDER_STARTED", runId, orderId, { attempt }),
    ev("ARTIFACT_WRITTEN", runId, orderId, { path: "outputs/model_output.txt", type: "text/plain" }),
    ev("AAR_WRITTEN", runId, orderId, { path: "aar.json" }),
    ev("ORDER_COMPLETED", runId, orderId),
  ];
}

/** A run with one order that goes from creation through integration. */
export function fullLifecycle(runId: string, orderId: string): LedgerEventInput[] {
  return [
    runCreated(runId),
    orderCreated(runId, orderId),
    ev("ORDER_ENQUEUED", runId, orderId),
    ev("WORKTREE_CREATED", runId, orderId, {
      worktree_path: `/srv/worktrees/${orderId}`,
      branch: `order_${orderId}`,
    }),
    ev("WORKTREE_READY", runId, orderId),
    ev("ORDER_CLAIMED", runId, orderId),
    ...workerBatch(runId, orderId),
    ev("INTEGRATION_READY", runId, orderId),
    ev("INTEGRATION_STARTED", runId, orderId),
    ev("INTEGRATION_PASSED", runId, orderId),
    ev("INTEGRATED", runId, orderId, { commit_sha: "0123456789abcdef0123456789abcdef01234567" }),
    ev("WORKTREE_ARCHIVED", runId, orderId),
    ev("RUN_COMPLETED", runId, null, { summary: "Five bullets written" }),
  ];
}
