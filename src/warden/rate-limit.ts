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
 * maxKeys × limit timestamps. With check(), refused attempts are not logged, so a client that keeps hammering is
 * let in again once its oldest allowed attempt leaves the window, never locked out for good by its own retries.
 * With peek() + record(), only what the caller records counts (failures), and failures keep counting.
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

  /** Checks and, when allowed, counts one attempt: for limits on every attempt, good or bad. */
  check(key: string): RateDecision {
    const decision = this.peek(key);
    if (decision.allowed) this.record(key);
    return decision;
  }

  /** Whether the key is under its limit now, without counting anything (for limits on failures only). */
  peek(key: string): RateDecision {
    const now = this.now();
    const times = this.live(key, now);
    if (times.length < this.limit) return { allowed: true };
    const oldest = times[0] ?? now;
    return {
      allowed: false,
      retryAfterSeconds: Math.max(1, Math.ceil((oldest + this.windowMs - now) / 1000)),
    };
  }

  /**
   * Counts one attempt (a failure, when only failures are limited), even past the limit: a key that keeps
   * failing stays refused until it stops. Only the newest `limit` times are kept, so memory stays bounded.
   */
  record(key: string): void {
    const now = this.now();
    const times = this.live(key, now);
    times.push(now);
    if (times.length > this.limit) times.shift();
    this.attempts.set(key, times);
    while (this.attempts.size > this.maxKeys) {
      const stalest = this.attempts.keys().next().value;
      if (stalest === undefined) break;
      this.attempts.delete(stalest);
    }
  }

  /**
   * The key's times still inside the window, moved to the end of the map (the most recently seen); a key with
   * none left is forgotten, so looking up keys that never failed costs no memory.
   */
  private live(key: string, now: number): number[] {
    const times = this.attempts.get(key) ?? [];
    this.attempts.delete(key);
    while (times.length > 0 && (times[0] ?? 0) <= now - this.windowMs) times.shift();
    if (times.length > 0) this.attempts.set(key, times);
    return times;
  }

  /** How many keys are remembered (for tests and metrics). */
  get size(): number {
    return this.attempts.size;
  }
}
