import type { Clock } from "../../agent/index.js";

/** When an order or its worktree counts as stuck (seed 000 §3.6 "too long", "no recent commits"). */
export interface OversightThresholds {
  /** An order RUNNING (or CLAIMED) longer than this, and longer than its own budget_seconds, is stalled. */
  stallAfterMs: number;
  /** An order at work whose branch got no commit for this long (counted from its start at the earliest). */
  staleWorktreeMs: number;
  /**
   * An integration STARTED this long ago whose process cannot be checked (another host, or none recorded) is
   * taken as cut off. One whose process is on this host is cut off as soon as that process is gone.
   */
  integrationStaleMs: number;
}

/**
 * A quarter of an hour past the start, twice that without a commit: longer than the default order budget (600 s).
 * An hour for an integration: longer than a gate's commands may run (10 minutes each) with merges waiting in line.
 */
export const DEFAULT_THRESHOLDS: OversightThresholds = {
  stallAfterMs: 900_000,
  staleWorktreeMs: 1_800_000,
  integrationStaleMs: 3_600_000,
};

/**
 * A dependency the duty officer watches (seed 000 §3.8 "SERVICE_DEGRADED if dependencies failing"): `check`
 * resolves when it works and rejects, saying why, when it does not.
 */
export interface ServiceProbe {
  name: string;
  check(): Promise<void>;
}

/** What one patrol may change for itself: a tighter stall threshold, or findings without any effect. */
export interface PatrolRequestOptions {
  stallAfterMs?: number;
  dryRun?: boolean;
}

/** The services and settings the observer and the duty officer share. */
export interface OversightContext {
  clock: Pick<Clock, "now">;
  thresholds: OversightThresholds;
  garrisonId: string;
}
