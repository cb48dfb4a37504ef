import { z } from "zod";
import { createLogger, type Logger } from "../../core/index.js";
import {
  type AttemptResult,
  classifyHttpFailure,
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
  withRetries,
} from "../../providers/index.js";

export interface TelegramApiOptions {
  /** `https://api.telegram.org`, a self-hosted Bot API server, or a local fake in tests. */
  baseUrl: string;
  token: string;
  /** Per attempt; a Bot API call that hangs must not hold a chat's queue forever. */
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

// Bot API answers (https://core.telegram.org/bots/api#making-requests); only what decides a retry is read.
const answerSchema = z.looseObject({
  ok: z.boolean(),
  description: z.string().optional(),
  parameters: z.looseObject({ retry_after: z.number().optional() }).optional(),
});

/**
 * The few Bot API methods the warden needs. Failures are data: every method logs what went wrong and returns
 * false, because a reply that cannot be delivered must never take the daemon down. The token is part of every
 * URL, so URLs are never logged.
 */
export class TelegramApi {
  private readonly baseUrl: string;
  private readonly log: Logger;

  constructor(private readonly options: TelegramApiOptions) {
    this.baseUrl = options.baseUrl.replace(/\/+$/, "");
    this.log = options.logger ?? createLogger("telegram");
  }

  /** Plain text on purpose: with a parse_mode, any stray `*` or `<` in a model's answer gets the message refused. */
  sendMessage(chatId: string, text: string, buttons?: InlineButton[]): Promise<boolean> {
    // One row of buttons under the message (https://core.telegram.org/bots/api#inlinekeyboardmarkup).
    const markup = buttons?.length
      ? { reply_markup: { inline_keyboard: [buttons.map((b) => ({ text: b.text, callback_data: b.data }))] } }
      : {};
    return this.call("sendMessage", { chat_id: chatIdValue(chatId), text, ...markup }, { chatId });
  }

  /** Ends the spinner Telegram shows on a pressed button; the answer itself comes as a message. */
  answerCallbackQuery(callbackQueryId: string): Promise<boolean> {
    return this.call("answerCallbackQuery", { callback_query_id: callbackQueryId }, {});
  }

  /** Points the bot's updates at the warden; Telegram then echoes `secretToken` on every webhook call. */
  setWebhook(url: string, secretToken: string): Promise<boolean> {
    return this.call(
      "setWebhook",
      { url, secret_token: secretToken, allowed_updates: ["message", "callback_query"] },
      {},
    );
  }

  private async call(method: string, body: Record<string, unknown>, context: object): Promise<boolean> {
    const result = await withRetries(this.retryPolicy(), () => this.attempt(method, body), {
      beforeWait: (failure, _attempt, waitMs) =>
        this.log.debug({ method, ...context, status: failure.status, waitMs }, "Bot API call retried"),
    });
    if (result.ok) return true;
    this.log.warn(
      { method, ...context, status: result.failure.status, reason: result.failure.reason },
      "Bot API call failed",
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

  /**
   * 429 waits what Telegram asks (in the body, not a header); 5xx backs off; anything else (400 chat not found,
   * 403 blocked) is final.
   */
  private async attempt(
    method: string,
    body: Record<string, unknown>,
  ): Promise<AttemptResult<true, Failure>> {
    let response: Response;
    try {
      response = await (this.options.fetch ?? fetch)(`${this.baseUrl}/bot${this.options.token}/${method}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
    } catch (cause) {
      // Not retried: after a timeout Telegram may well have delivered the message, and twice is worse than once.
      const reason = this.redact(cause instanceof Error ? cause.message : String(cause));
      return { ok: false, retryable: false, failure: { status: 0, reason } };
    }
    const text = await response.text().catch(() => "");
    const answer = answerSchema.safeParse(safeJson(text));
    if (response.ok && answer.success && answer.data.ok) return { ok: true, value: true };
    const reason = answer.success
      ? (answer.data.description ?? `status ${response.status}`)
      : `status ${response.status}, not a Bot API answer`;
    const { retryable } = classifyHttpFailure(response.status, text);
    const retryAfter = answer.success ? answer.data.parameters?.retry_after : undefined;
    return {
      ok: false,
      retryable,
      failure: { status: response.status, reason: this.redact(reason) },
      ...(response.status === 429 ? { retryAfterMs: (retryAfter ?? 1) * 1000 } : {}),
    };
  }

  private redact(text: string): string {
    return text.replaceAll(this.options.token, "<token>");
  }
}

/** An inline keyboard button; `data` comes back in the callback_query when it is pressed. */
export interface InlineButton {
  text: string;
  data: string;
}

/** Status 0 means no answer came. */
type Failure = { status: number; reason: string };

/** Telegram chat ids are integers (up to 52 bits); `@channelname` stays a string. */
function chatIdValue(chatId: string): number | string {
  return /^-?\d{1,16}$/.test(chatId) && Number.isSafeInteger(Number(chatId)) ? Number(chatId) : chatId;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
