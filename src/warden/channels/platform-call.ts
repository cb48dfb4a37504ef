import { ConfigError } from "../../core/index.js";
import {
  type AttemptResult,
  classifyHttpFailure,
  DEFAULT_RETRY_POLICY,
  parseRetryAfterMs,
  type RetryPolicy,
  withRetries,
} from "../../providers/index.js";

/** How a channel's calls to its platform (Telegram, Slack, Discord, Meta) are bounded and retried. */
export interface PlatformCallOptions {
  /** Per attempt; a call that hangs must not hold a chat's queue forever. Default 10 s. */
  timeoutMs?: number;
  /** Retries after the first attempt, for 429 and 5xx answers. */
  maxRetries?: number;
  /** A 429 asking for a longer wait than this is not waited for: the message is dropped instead. */
  maxRetryAfterMs?: number;
  /** First backoff after a 5xx, doubled on each further retry. */
  backoffMs?: number;
  fetch?: typeof fetch;
}

/** Why a call failed for good. Status 0 means no answer came; `code` is the platform's own, when it gave one. */
export interface PlatformFailure {
  status: number;
  reason: string;
  code?: number;
}

/** What a platform's answer means: success, or why not and how long a 429 asks to wait. */
export type PlatformVerdict =
  | { ok: true }
  | {
      ok: false;
      reason: string;
      code?: number;
      /** A 429's wait as the answer's body gives it; without it, the Retry-After header's. */
      retryAfterSeconds?: number;
      /** Overrides the status's own classification (an `ok: false` inside a 200 is final). */
      retryable?: boolean;
    };

/**
 * One JSON request to a messaging platform, retried under the shared policy (429 waits what the platform asks,
 * 5xx backs off, the rest is final), never thrown: undefined when it succeeded, else why not. A request that got
 * no answer is not retried — the platform may well have delivered it, and twice is worse than once. `secret` (a
 * token) is blanked out of every reason, so failures can be logged.
 */
export async function callPlatform(input: {
  url: string;
  method?: string;
  headers: Record<string, string>;
  /** Sent as JSON; a GET has none. */
  body?: unknown;
  secret: string;
  options?: PlatformCallOptions;
  /** Ends the call and its waits (a channel stopping); it then fails with status 0, "stopped". */
  signal?: AbortSignal;
  read: (answer: { status: number; ok: boolean; headers: Headers; text: string }) => PlatformVerdict;
  onRetry?: (failure: PlatformFailure, waitMs: number) => void;
}): Promise<PlatformFailure | undefined> {
  const options = input.options ?? {};
  const redact = (text: string) => (input.secret ? text.replaceAll(input.secret, "<token>") : text);
  const policy: RetryPolicy = {
    ...DEFAULT_RETRY_POLICY,
    maxRetries: options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
    baseDelayMs: options.backoffMs ?? DEFAULT_RETRY_POLICY.baseDelayMs,
    maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULT_RETRY_POLICY.maxRetryAfterMs,
  };
  const attempt = async (): Promise<AttemptResult<true, PlatformFailure>> => {
    let response: Response;
    try {
      response = await (options.fetch ?? fetch)(input.url, {
        method: input.method ?? "POST",
        headers: input.headers,
        ...(input.body === undefined ? {} : { body: JSON.stringify(input.body) }),
        signal: input.signal
          ? AbortSignal.any([input.signal, AbortSignal.timeout(options.timeoutMs ?? 10_000)])
          : AbortSignal.timeout(options.timeoutMs ?? 10_000),
      });
    } catch (cause) {
      const reason = redact(cause instanceof Error ? cause.message : String(cause));
      return { ok: false, retryable: false, failure: { status: 0, reason } };
    }
    const text = await response.text().catch(() => "");
    const verdict = input.read({ status: response.status, ok: response.ok, headers: response.headers, text });
    if (verdict.ok) return { ok: true, value: true };
    // The platform's own figure (a body's), else the Retry-After header (seconds or an HTTP date), else 1 s.
    const waitMs =
      verdict.retryAfterSeconds !== undefined && Number.isFinite(verdict.retryAfterSeconds)
        ? verdict.retryAfterSeconds * 1000
        : (parseRetryAfterMs(response.headers.get("retry-after")) ?? 1000);
    return {
      ok: false,
      retryable: verdict.retryable ?? classifyHttpFailure(response.status, text).retryable,
      failure: {
        status: response.status,
        reason: redact(verdict.reason),
        ...(verdict.code === undefined ? {} : { code: verdict.code }),
      },
      ...(response.status === 429 ? { retryAfterMs: waitMs } : {}),
    };
  };
  try {
    const result = await withRetries(policy, attempt, {
      beforeWait: (failure, _attempt, waitMs) => input.onRetry?.(failure, waitMs),
      ...(input.signal ? { signal: input.signal } : {}),
    });
    return result.ok ? undefined : result.failure;
  } catch (error) {
    // Only a wait cut short by the signal throws.
    if (input.signal?.aborted) return { status: 0, reason: "stopped" };
    throw error;
  }
}

/** JSON.parse that answers undefined for text that is not JSON. */
export function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A channel's secret from `[integrations.<table>]`: `<key>` inline, or the variable `<key>_env` names. Throws
 * ConfigError naming the key when neither gives one.
 */
export function channelSecret(
  table: string,
  key: string,
  inline: string | undefined,
  variable: string | undefined,
  env: NodeJS.ProcessEnv,
): string {
  const value = inline ?? (variable === undefined ? undefined : env[variable]);
  if (value) return value;
  throw new ConfigError("ironclawd.toml", [
    variable === undefined
      ? { key: `integrations.${table}.${key}`, rule: "is required" }
      : { key: `integrations.${table}.${key}_env`, rule: `names ${variable}, which is not set` },
  ]);
}

/**
 * The ids a channel has taken lately (updates, events, messages, interactions), so that one a platform delivers
 * again is not a second turn; bounded, the oldest forgotten first.
 */
export class RecentIds<T extends string | number> {
  private readonly ids = new Set<T>();
  constructor(private readonly max: number) {}

  /** True when `id` was taken before; otherwise takes it and returns false. */
  seenBefore(id: T): boolean {
    if (this.ids.has(id)) return true;
    this.ids.add(id);
    const oldest = this.ids.values().next();
    if (this.ids.size > this.max && !oldest.done) this.ids.delete(oldest.value);
    return false;
  }
}
