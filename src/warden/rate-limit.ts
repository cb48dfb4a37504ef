export type RateDecision = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface RateLimiterOptions {
  /** Attempts allowed per key within one window. */
  limit?: number;
  windowMs?: number;
  /** Keys remembered at most; the least recently seen is forgotten first. */
  maxKeys?: number;
  now?: () => number;
}

/**
 * A sliding-window log of attempts per key (a client address for logins). Memory is bounded by
 * maxKeys × limit timestamps. Refused attempts are not logged, so a client that keeps hammering is let in again
 * once its oldest allowed attempt leaves the window, never locked out for good by its own retries.
 */
export class RateLimiter {
  private readonly limit: number;
  private readonly windowMs: number;
  private readonly maxKeys: number;
  private readonly now: () => number;
  /** Map iteration order is insertion order; re-inserting on every check makes the first key the stalest. */
  private readonly attempts = new Map<string, number[]>();

  constructor(options: RateLimiterOptions = {}) {
    this.limit = options.limit ?? 10;
    this.windowMs = options.windowMs ?? 60_000;
    this.maxKeys = options.maxKeys ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  check(key: string): RateDecision {
    const now = this.now();
    const times = this.attempts.get(key) ?? [];
    this.attempts.delete(key);
    while (times.length > 0 && (times[0] ?? 0) <= now - this.windowMs) times.shift();
    this.attempts.set(key, times);
    if (times.length >= this.limit) {
      const oldest = times[0] ?? now;
      return {
        allowed: false,
        retryAfterSeconds: Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000)),
      };
    }
    times.push(now);
    while (this.attempts.size > this.maxKeys) {
      const stalest = this.attempts.keys().next().value;
      if (stalest === undefined) break;
      this.attempts.delete(stalest);
    }
    return { allowed: true };
  }

  /** How many keys are remembered (for tests and metrics). */
  get size(): number {
    return this.attempts.size;
  }
}
