import type { PolicyChange, PolicyDerivation, PolicyRoute, RoutingPolicy } from "../../contracts/index.js";
import type { MeasuredRow } from "./outcome-rows.js";

/**
 * Smoothed success: (succeeded − corrections + 1) / (orders + 2). The +1/+2 (Laplace) keeps one lucky order
 * from outranking a profile with a long good record, and a thumbs-down weighs as much as a failure.
 */
export function scoreOf(row: MeasuredRow): number {
  return (row.succeeded - row.corrections + 1) / (row.orders + 2);
}

/**
 * The preferred profile of each task type: highest score; on a tie, more orders, then lower p50 latency, then
 * fewer retries, then the name — so that the same history always gives the same policy.
 */
export function routesOf(rows: readonly MeasuredRow[]): PolicyRoute[] {
  const best = new Map<string, MeasuredRow>();
  for (const row of rows) {
    const held = best.get(row.task_type);
    if (!held || better(row, held)) best.set(row.task_type, row);
  }
  return [...best.values()].map((row) => ({
    task_type: row.task_type,
    profile: { name: row.profile, model: row.model },
    score: Math.round(scoreOf(row) * 10_000) / 10_000,
    reason:
      `${row.succeeded}/${row.orders} succeeded, ${row.corrections} thumbs-down, ` +
      `${row.retries} retries, p50 ${row.latency_ms.p50} ms`,
    stats: row,
  }));
}

function better(a: MeasuredRow, b: MeasuredRow): boolean {
  const byScore = scoreOf(a) - scoreOf(b);
  if (byScore !== 0) return byScore > 0;
  if (a.orders !== b.orders) return a.orders > b.orders;
  if (p50(a) !== p50(b)) return p50(a) < p50(b);
  if (a.retries !== b.retries) return a.retries < b.retries;
  return a.profile < b.profile;
}

/** A profile that never completed has no latency to be fast with. */
const p50 = (row: MeasuredRow) =>
  row.latency_ms.samples > 0 ? row.latency_ms.p50 : Number.POSITIVE_INFINITY;

/** The task types whose route differs between two versions, by task type. */
export function routeChanges(before: readonly PolicyRoute[], after: readonly PolicyRoute[]): PolicyChange[] {
  const from = new Map(before.map((r) => [r.task_type, r.profile]));
  const to = new Map(after.map((r) => [r.task_type, r.profile]));
  const types = [...new Set([...from.keys(), ...to.keys()])].sort();
  const changes: PolicyChange[] = [];
  for (const taskType of types) {
    const a = from.get(taskType);
    const b = to.get(taskType);
    if (a?.name === b?.name && a?.model === b?.model) continue;
    changes.push({ task_type: taskType, from: a?.name ?? null, to: b?.name ?? null });
  }
  return changes;
}

export interface PolicyInput {
  version: number;
  createdAt: string;
  rows: MeasuredRow[];
  corrections: number;
  derivedFrom: PolicyDerivation;
  previous: RoutingPolicy | undefined;
}

/** A version of the routing policy, with its diff against the version that was active before it. */
export function policyDocument(input: PolicyInput): RoutingPolicy {
  const routes = routesOf(input.rows);
  return {
    version: input.version,
    created_at: input.createdAt,
    routes,
    outcomes: input.rows,
    corrections: input.corrections,
    derived_from: input.derivedFrom,
    diff: {
      previous_version: input.previous?.version ?? null,
      changes: routeChanges(input.previous?.routes ?? [], routes),
    },
  };
}
