/**
 * How often and how long every outbound call (model chat, embeddings, Bot API) retries a refused or failed
 * request. One policy so that a 429 is treated the same way whoever sent the request.
 */
export interface RetryPolicy {
  /** Retries after the first attempt. */
  maxRetries: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** A Retry-After longer than this is not waited for: the call fails instead of hanging a turn. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxRetries: 3,
  baseDelayMs: 500,
  maxDelayMs: 8_000,
  maxRetryAfterMs: 60_000,
};

/**
 * The delay before retry number `retry` (1-based): what the server asked for when it said (Retry-After),
 * otherwise exponential backoff with jitter so that many cells do not retry in lockstep. Undefined means give up.
 */
export function retryDelayMs(
  policy: RetryPolicy,
  retry: number,
  retryAfterMs: number | undefined,
  random = Math.random,
): number | undefined {
  if (retry > policy.maxRetries) return undefined;
  if (retryAfterMs !== undefined) return retryAfterMs > policy.maxRetryAfterMs ? undefined : retryAfterMs;
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** Retry-After is either delay-seconds or an HTTP date (RFC 9110 §10.2.3). */
export function parseRetryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, date - now);
}

/** What one attempt came to: its value, or a failure that says whether sending again could help. */
export type AttemptResult<T, F> =
  | { ok: true; value: T }
  | { ok: false; failure: F; retryable: boolean; retryAfterMs?: number };

export type RetriedResult<T, F> =
  | { ok: true; value: T; attempts: number }
  | { ok: false; failure: F; attempts: number };

export interface RetryOptions<F> {
  /** Aborting it ends a wait between attempts at once: `withRetries` then rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Called before each wait, e.g. to log the retry or pause a timer that measures the server's silence. */
  beforeWait?: (failure: F, attempt: number, delayMs: number) => void;
  random?: () => number;
}

/**
 * Runs `attempt` until it succeeds, fails for good, or the policy gives up; the last failure comes back as data.
 * An attempt reports failures as results; one that throws (e.g. on abort) ends the loop with that error.
 */
export async function withRetries<T, F>(
  policy: RetryPolicy,
  attempt: (attempt: number) => Promise<AttemptResult<T, F>>,
  options: RetryOptions<F> = {},
): Promise<RetriedResult<T, F>> {
  for (let n = 1; ; n++) {
    const outcome = await attempt(n);
    if (outcome.ok) return { ok: true, value: outcome.value, attempts: n };
    const delay = outcome.retryable
      ? retryDelayMs(policy, n, outcome.retryAfterMs, options.random)
      : undefined;
    if (delay === undefined) return { ok: false, failure: outcome.failure, attempts: n };
    options.beforeWait?.(outcome.failure, n, delay);
    await sleep(delay, options.signal);
  }
}

/** Resolves after `ms`, or rejects with the signal's reason as soon as it aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
