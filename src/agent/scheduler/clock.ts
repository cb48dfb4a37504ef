/** Time as the scheduler sees it; tests pass a manual clock so catch-up runs without sleeping. */
export interface Clock {
  now(): number;
  /**
   * A clock that only moves forward while the process runs (timers wait in it). Where it is given, the
   * scheduler notices the wall clock jumping against it (see CronScheduler).
   */
  monotonic?(): number;
  setTimer(fn: () => void, ms: number): unknown;
  clearTimer(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  monotonic: () => performance.now(),
  setTimer: (fn, ms) => setTimeout(fn, ms),
  clearTimer: (handle) => clearTimeout(handle as NodeJS.Timeout),
};
