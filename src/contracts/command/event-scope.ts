import type { LedgerEventType } from "./event-types.js";

/**
 * Which ids an event must carry, by the family its type belongs to. Seed 000 §1 lists theater_id, run_id and
 * order_id among the "Required base event fields" and prints `"unit_id": null`; events about no order, run or
 * theater (heartbeats, a dead duty officer) exist too (§3.8, §3.9), so the ids are required by family:
 * - `order`: the order lifecycle and everything that happens to one order's worktree, artifacts, AAR and
 *   integration. A projection files these under an order, so order_id and run_id are required.
 * - `run`: RUN_*; they concern a whole run, so run_id is required and order_id is not.
 * - `incident`: ESCALATION_* and RECOVERY_*; observers raise them for an order, a run or a whole theater,
 *   and the sentinel raises them when the duty officer itself is dead, so no id beyond garrison_id is required.
 * - `system`: PATROL_TICK, SERVICE_* and POLICY_UPDATED are heartbeats and health of services or policy, not of
 *   work; run_id and theater_id may be null.
 * In every family the ids nest: an order belongs to a run, a run to a theater.
 */
export type EventScope = "order" | "run" | "incident" | "system";

export function eventScopeOf(type: LedgerEventType): EventScope {
  if (type.startsWith("RUN_")) return "run";
  if (type.startsWith("ESCALATION_") || type.startsWith("RECOVERY_")) return "incident";
  if (type === "PATROL_TICK" || type.startsWith("SERVICE_") || type === "POLICY_UPDATED") return "system";
  return "order";
}

export interface ScopedIds {
  type: LedgerEventType;
  theater_id: string | null;
  run_id: string | null;
  order_id?: string | null | undefined;
  unit_id?: string | null | undefined;
}

export interface ScopeProblem {
  field: "theater_id" | "run_id" | "order_id";
  message: string;
}

// Module-level helpers rather than closures per call: every event of every append is checked here.
const has = (v: string | null | undefined) => v !== null && v !== undefined;

function need(problems: ScopeProblem[], event: ScopedIds, field: ScopeProblem["field"], why: string): void {
  problems.push({ field, message: `is required for ${event.type} events: ${why}` });
}

/** Every id rule an event breaks; empty when its ids fit its type. */
export function checkEventScope(event: ScopedIds): ScopeProblem[] {
  const scope = eventScopeOf(event.type);
  const problems: ScopeProblem[] = [];
  if (scope === "order" && !has(event.order_id))
    need(problems, event, "order_id", "they belong to one order");
  if ((scope === "order" || scope === "run") && !has(event.run_id))
    need(problems, event, "run_id", "they belong to one run");
  if ((scope === "order" || scope === "run") && !has(event.theater_id))
    need(problems, event, "theater_id", "their run belongs to a theater");

  if (scope !== "order" && scope !== "run") {
    if (has(event.order_id) && !has(event.run_id))
      problems.push({
        field: "run_id",
        message: "must be set when order_id is set: every order belongs to a run",
      });
    if (has(event.run_id) && !has(event.theater_id))
      problems.push({
        field: "theater_id",
        message: "must be set when run_id is set: every run belongs to a theater",
      });
  }
  return problems;
}
