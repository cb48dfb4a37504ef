import type { OutcomeRow } from "../../contracts/index.js";
import type { OrderTrack, OutcomeHistory } from "./order-outcomes.js";

/**
 * One profile on one task type, as the policy sees it: the contract's row (seed 000 §3.10 success rate, retries,
 * latency) plus the thumbs-down count and the model that profile last ran on.
 */
export type MeasuredRow = OutcomeRow & {
  corrections: number;
  model: string;
  latency_ms: OutcomeRow["latency_ms"] & { samples: number; p95: number };
};

/**
 * Rows for every profile × task type with at least one order that ended (completed or failed; a cancelled order
 * says nothing about the profile), sorted by task type then profile. An order counts as succeeded when it
 * completed and its gates did not fail afterwards; each of its run's thumbs-down counts as one correction.
 */
export function outcomeRows(history: OutcomeHistory): MeasuredRow[] {
  const groups = new Map<string, OrderTrack[]>();
  for (const track of history.orders.values()) {
    if (track.outcome !== "completed" && track.outcome !== "failed") continue;
    const key = `${track.taskType}\u0000${track.profile}`;
    const group = groups.get(key) ?? [];
    group.push(track);
    groups.set(key, group);
  }
  const rows = [...groups.values()].map((tracks) => rowOf(tracks, history.ratings));
  return rows.sort((a, b) => compare(a.task_type, b.task_type) || compare(a.profile, b.profile));
}

function rowOf(tracks: OrderTrack[], ratings: ReadonlyMap<string, "down" | "up">): MeasuredRow {
  const [first] = tracks;
  if (!first) throw new Error("outcomeRows: an empty group");
  const succeeded = tracks.filter((t) => t.outcome === "completed" && !t.integrationFailed).length;
  const latencies = tracks.flatMap((t) => (t.latencyMs === null ? [] : [t.latencyMs]));
  return {
    profile: first.profile,
    task_type: first.taskType,
    model: tracks.at(-1)?.model ?? first.model,
    orders: tracks.length,
    succeeded,
    success_rate: Math.round((succeeded / tracks.length) * 1000) / 1000,
    retries: tracks.reduce((sum, t) => sum + t.retries, 0),
    corrections: tracks.filter((t) => t.runId !== null && ratings.get(t.runId) === "down").length,
    latency_ms: latencyDistribution(latencies),
  };
}

/** Nearest-rank percentiles (the smallest sample at or above p% of them); all zero when nothing completed. */
export function latencyDistribution(samples: readonly number[]): MeasuredRow["latency_ms"] {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
  return { samples: sorted.length, p50: at(50), p90: at(90), p95: at(95), p99: at(99), max: at(100) };
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
