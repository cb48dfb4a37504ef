import type { PATROL_CHECKS, Severity } from "../../contracts/index.js";
import type { OrderSnapshot } from "../../ledger/index.js";
import type { PlannedOrder } from "../co/planned-order.js";
import type { TheaterRecord } from "../vault/theaters.js";
import type { OversightThresholds } from "./oversight-options.js";
import { aarProblem, dirtyState, lastCommitAt, missingArtifacts } from "./worktree-facts.js";

export type PatrolCheck = (typeof PATROL_CHECKS)[number];

/**
 * One thing a patrol found wrong with an order, and what it raises: RECOVERY_REQUIRED for what another attempt can
 * fix, ESCALATION_RAISED for what needs a person (route "owner": the run's user).
 */
export interface Finding {
  check: PatrolCheck;
  order: OrderSnapshot;
  detail: string;
  raise: { type: "RECOVERY_REQUIRED" } | { type: "ESCALATION_RAISED"; severity: Severity };
  /** For a stalled order: whether its retry cap leaves another attempt (the duty officer reissues it). */
  reissuable?: boolean;
}

export interface OrderInspection {
  findings: Finding[];
  /** A completed order whose AAR and artifacts are valid and whose worktree is clean (INTEGRATION_READY). */
  ready: boolean;
}

const AT_WORK = new Set(["CLAIMED", "RUNNING"]);
const LIVE_WORKTREE = new Set(["CREATED", "READY"]);

/** The attempts an order may make: the first and its retries (seed 000 §2 constraints.max_retries). */
export function attemptsAllowed(plan: PlannedOrder | null): number {
  return (plan?.constraints.max_retries ?? 0) + 1;
}

/** Whether an order at work has run past its stall threshold, which is never shorter than its own budget. */
export function stallOf(
  order: OrderSnapshot,
  plan: PlannedOrder | null,
  now: number,
  stallAfterMs: number,
): Finding | undefined {
  if (!AT_WORK.has(order.status)) return undefined;
  const since = Date.parse(order.started_at ?? order.updated_at);
  const limit = Math.max(stallAfterMs, (plan?.constraints.budget_seconds ?? 0) * 1000);
  if (now - since <= limit) return undefined;
  const reissuable = order.attempt < attemptsAllowed(plan);
  const detail =
    `attempt ${order.attempt} has been ${order.status} for more than ${Math.round(limit / 1000)} s` +
    (reissuable ? "" : `; its retry cap (${attemptsAllowed(plan)} attempts) is spent`);
  return {
    check: "stalled_order",
    order,
    detail,
    raise: reissuable ? { type: "RECOVERY_REQUIRED" } : { type: "ESCALATION_RAISED", severity: "HIGH" },
    reissuable,
  };
}

/** Every check of seed 000 §3.6 that applies to the order in its present state. */
export async function inspectOrder(
  order: OrderSnapshot,
  plan: PlannedOrder | null,
  theater: TheaterRecord | undefined,
  now: number,
  thresholds: OversightThresholds,
): Promise<OrderInspection> {
  const findings: Finding[] = [];
  const stall = stallOf(order, plan, now, thresholds.stallAfterMs);
  if (stall) findings.push(stall);
  const worktree = order.worktree_path;
  if (!theater || worktree === null || !LIVE_WORKTREE.has(order.worktree_state ?? "")) {
    return { findings, ready: false };
  }
  const found = (check: PatrolCheck, detail: string, raise: Finding["raise"]) =>
    findings.push({ check, order, detail, raise });

  if (AT_WORK.has(order.status) || order.status === "BLOCKED") {
    const committed = await lastCommitAt(theater, order.branch ?? `order_${order.order_id}`);
    const since = Math.max(committed ?? 0, Date.parse(order.started_at ?? order.updated_at));
    if (now - since > thresholds.staleWorktreeMs)
      found(
        "stale_worktree",
        `no commit on its branch for more than ${Math.round(thresholds.staleWorktreeMs / 1000)} s`,
        { type: "RECOVERY_REQUIRED" },
      );
    return { findings, ready: false };
  }
  // A failed or cancelled order is not watched (active-orders.ts): what is left in its worktree is kept as it is.
  if (order.status !== "COMPLETED") return { findings, ready: false };
  const dirty = await dirtyState(theater, worktree);
  if (dirty) found("dirty_worktree", dirty, { type: "ESCALATION_RAISED", severity: "MEDIUM" });
  if (order.integration_state !== null) return { findings, ready: false };
  const aar = aarProblem(order, worktree);
  if (aar) found("missing_aar", aar, { type: "ESCALATION_RAISED", severity: "HIGH" });
  const missing = await missingArtifacts(theater, order, worktree);
  if (missing.length > 0)
    found("missing_artifacts", `not on its branch: ${missing.join(", ")}`, {
      type: "ESCALATION_RAISED",
      severity: "HIGH",
    });
  return { findings, ready: findings.length === 0 };
}
