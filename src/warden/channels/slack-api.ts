import { z } from "zod";
import { createLogger, type Logger } from "../../core/index.js";
import {
  type AttemptResult,
  classifyHttpFailure,
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
  withRetries,
} from "../../providers/index.js";

export interface SlackApiOptions {
  /** `https://slack.com/api`, or a local fake in tests. */
  baseUrl: string;
  /** The bot token (xoxb-…): sent as a bearer token, never in a URL, never logged. */
  token: string;
  /** Per attempt; a Web API call that hangs must not hold a conversation's queue forever. */
  timeoutMs?: number;
  /** Retries after the first attempt, for 429 and 5xx answers. */
  maxRetries?: number;
  /** A 429 asking for a longer wait than this is not waited for: the message is dropped instead. */
  maxRetryAfterMs?: number;
  /** First backoff after a 5xx, doubled on each further retry. */
  backoffMs?: number;
  logger?: Logger;
  fetch?: typeof fetch;
}

// Web API answers (https://api.slack.com/web#responses): `ok`, and `error` when not.
const answerSchema = z.looseObject({ ok: z.boolean(), error: z.string().optional() });

/** Status 0 means no answer came. */
type Failure = { status: number; reason: string };

/**
 * The one Web API method the warden needs. Failures are data: it logs what went wrong and returns false, because
 * an answer that cannot be delivered must never take the daemon down, nor hold other conversations up.
 */
export class SlackApi {
  private readonly baseUrl: string;
  private readonly log: Logger;

  constructor(private readonly options: SlackApiOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.log = options.logger ?? createLogger("slack");
  }

  /**
   * Posts plain text (mrkdwn off, so a model's stray `*` or `<` is shown as written and `<!channel>` pings
   * nobody) into a conversation, in a thread when `threadTs` names one.
   */
  async postMessage(channel: string, text: string, threadTs?: string): Promise<boolean> {
    const body = { channel, text, mrkdwn: false, ...(threadTs ? { thread_ts: threadTs } : {}) };
    const result = await withRetries(this.retryPolicy(), () => this.attempt("chat.postMessage", body), {
      beforeWait: (failure, _attempt, waitMs) =>
        this.log.debug({ channel, status: failure.status, waitMs }, "Slack call retried"),
    });
    if (result.ok) return true;
    this.log.warn(
      { method: "chat.postMessage", channel, status: result.failure.status, reason: result.failure.reason },
      "Slack call failed",
    );
    return false;
  }

  private retryPolicy(): RetryPolicy {
    return {
      ...DEFAULT_RETRY_POLICY,
      maxRetries: this.options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
      baseDelayMs: this.options.backoffMs ?? DEFAULT_RETRY_POLICY.baseDelayMs,
      maxRetryAfterMs: this.options.maxRetryAfterMs ?? DEFAULT_RETRY_POLICY.maxRetryAfterMs,
    };
  }

  /** 429 waits what Slack's Retry-After header asks; 5xx backs off; an `ok: false` answer is final. */
  private async attempt(
    method: string,
    body: Record<string, unknown>,
  ): Promise<AttemptResult<true, Failure>> {
    let response: Response;
    try {
      response = await (this.options.fetch ?? fetch)(`${this.baseUrl}/${method}`, {
        method: "POST",
        headers: {
          "content-type": "application/json; charset=utf-8",
          authorization: `Bearer ${this.options.token}`,
        },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
    } catch (cause) {
      // Not retried: after a timeout Slack may well have posted the message, and twice is worse than once.
      const reason = this.redact(cause instanceof Error ? cause.message : String(cause));
      return { ok: false, retryable: false, failure: { status: 0, reason } };
    }
    const text = await response.text().catch(() => "");
    const answer = answerSchema.safeParse(safeJson(text));
    if (response.ok && answer.success && answer.data.ok) return { ok: true, value: true };
    const reason = answer.success
      ? (answer.data.error ?? `status ${response.status}`)
      : `status ${response.status}, not a Web API answer`;
    const { retryable } = classifyHttpFailure(response.status, text);
    const retryAfter = Number(response.headers.get("retry-after") ?? "1");
    return {
      ok: false,
      retryable: response.ok ? false : retryable,
      failure: { status: response.status, reason: this.redact(reason) },
      ...(response.status === 429
        ? { retryAfterMs: (Number.isFinite(retryAfter) ? retryAfter : 1) * 1000 }
        : {}),
    };
  }

  private redact(text: string): string {
    return text.replaceAll(this.options.token, "<token>");
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
