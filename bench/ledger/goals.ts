import { fmt } from "./measure.js";

/**
 * The goals of issue #17, per store: a rate (events/s) and/or a ratio to the raw baseline measured in the same
 * run. A goal a store does not have is left out. Ratios are what matter on a busy machine: both sides of a
 * ratio run in alternating rounds, so a neighbour slows them alike; rates are "on a quiet machine", so the
 * bench prints the load average beside them.
 */
export interface Goal {
  rate?: number;
  ratio?: number;
}

export interface StoreGoals {
  single: Goal;
  batched: Goal;
  rebuild: Goal;
}

export const GOALS: Record<"sqlite" | "postgres", StoreGoals> = {
  sqlite: { single: { ratio: 0.8 }, batched: { rate: 100_000, ratio: 0.5 }, rebuild: { rate: 300_000 } },
  postgres: { single: {}, batched: { ratio: 0.6 }, rebuild: {} },
};

/** "meets ≥ 0.80× raw", "below ≥ 100,000/s and ≥ 0.50× raw", or "" when there is no goal. */
export function describeGoal(goal: Goal, measured: { rate: number; ratio?: number }): string {
  const parts: string[] = [];
  let met = true;
  if (goal.rate !== undefined) {
    parts.push(`≥ ${fmt(goal.rate)}/s`);
    met &&= measured.rate >= goal.rate;
  }
  if (goal.ratio !== undefined) {
    parts.push(`≥ ${fmt(goal.ratio, 2)}× raw`);
    met &&= measured.ratio !== undefined && measured.ratio >= goal.ratio;
  }
  return parts.length === 0 ? "" : `${met ? "meets" : "below"} ${parts.join(" and ")}`;
}
