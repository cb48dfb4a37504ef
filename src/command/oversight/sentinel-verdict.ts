import type { BACKLOG_TRENDS, DUTY_OFFICER_VERDICTS } from "../../contracts/index.js";

export type BacklogTrend = (typeof BACKLOG_TRENDS)[number];
export type DutyOfficerVerdict = (typeof DUTY_OFFICER_VERDICTS)[number];

/** One audit's reading: the overdue orders the duty officer should have reissued, and its ticks so far. */
export interface AuditSample {
  backlog: number;
  ticks: number;
}

/**
 * Audits a rising backlog must span before the duty officer counts as ineffective: three, so the backlog rose
 * twice in a row, each time across a tick, and one slow tick or one burst of stalls is not enough.
 */
export const INEFFECTIVE_WINDOW = 3;

/** Patrol periods without a PATROL_TICK after which the duty officer counts as dead (seed 000 §3.9). */
export const DEAD_AFTER_PERIODS = 2;

export function trendOf(samples: readonly AuditSample[]): BacklogTrend {
  const [before, now] = samples.slice(-2);
  if (!before || !now || before.backlog === now.backlog) return "steady";
  return now.backlog > before.backlog ? "rising" : "falling";
}

/**
 * Dead: no tick for more than two patrol periods, counted from the last tick or from when the sentinel started
 * watching, whichever is later (a duty officer that just started has not ticked yet). A duty officer without a
 * timer ticks only when asked and cannot be judged dead. Ineffective: it keeps ticking while the orders it
 * should reissue pile up, audit after audit.
 */
export function verdictOf(input: {
  now: number;
  patrolMs: number;
  lastTickAt: number | undefined;
  watchingSince: number;
  samples: readonly AuditSample[];
}): DutyOfficerVerdict {
  const since = Math.max(input.lastTickAt ?? Number.NEGATIVE_INFINITY, input.watchingSince);
  if (input.patrolMs > 0 && input.now - since > DEAD_AFTER_PERIODS * input.patrolMs) return "dead";
  const window = input.samples.slice(-INEFFECTIVE_WINDOW);
  if (window.length < INEFFECTIVE_WINDOW) return "healthy";
  const piling = window.every((sample, i) => {
    const before = window[i - 1];
    return !before || (sample.backlog > before.backlog && sample.ticks > before.ticks);
  });
  return piling ? "ineffective" : "healthy";
}
