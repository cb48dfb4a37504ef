import { z } from "zod";
import { createLogger, type Logger } from "../../core/index.js";
import {
  type AttemptResult,
  classifyHttpFailure,
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
  withRetries,
} from "../../providers/index.js";

export interface WhatsappApiOptions {
  /** `https://graph.facebook.com/v21.0`, or a local fake in tests. */
  baseUrl: string;
  phoneNumberId: string;
  /** Sent as a bearer token, never in a URL, never logged. */
  token: string;
  timeoutMs?: number;
  maxRetries?: number;
  maxRetryAfterMs?: number;
  backoffMs?: number;
  logger?: Logger;
  fetch?: typeof fetch;
}

// Graph API errors (https://developers.facebook.com/docs/whatsapp/cloud-api/support/error-codes).
const errorSchema = z.looseObject({
  error: z.looseObject({ message: z.string().optional(), code: z.number().optional() }),
});
/** Meta's code for a free-form message outside the 24-hour customer-service window. */
export const OUTSIDE_WINDOW_CODE = 131047;

/** Status 0 means no answer came. */
type Failure = { status: number; reason: string; code?: number };

/**
 * The Cloud API calls the warden needs: a text, a template, a read receipt. Failures are data: each logs what went
 * wrong and returns false (or the failure), because an answer that cannot be delivered must never take the daemon
 * down, nor hold other conversations up.
 */
export class WhatsappApi {
  private readonly url: string;
  private readonly log: Logger;

  constructor(private readonly options: WhatsappApiOptions) {
    this.url = `${options.baseUrl.replace(/\/+$/, "")}/${options.phoneNumberId}/messages`;
    this.log = options.logger ?? createLogger("whatsapp");
  }

  /** Plain text, links not previewed (an answer's URL is not fetched by Meta on the reader's behalf). */
  sendText(to: string, body: string): Promise<Failure | undefined> {
    return this.call(
      { recipient_type: "individual", to, type: "text", text: { preview_url: false, body } },
      to,
    );
  }

  /** An approved template with one body parameter: what may reach someone outside the 24-hour window. */
  sendTemplate(to: string, name: string, language: string, parameter: string): Promise<Failure | undefined> {
    return this.call(
      {
        to,
        type: "template",
        template: {
          name,
          language: { code: language },
          components: [{ type: "body", parameters: [{ type: "text", text: parameter }] }],
        },
      },
      to,
    );
  }

  /** Marks a received message read (the two blue ticks). */
  async markRead(messageId: string): Promise<boolean> {
    return (await this.call({ status: "read", message_id: messageId }, undefined)) === undefined;
  }

  private async call(body: Record<string, unknown>, to: string | undefined): Promise<Failure | undefined> {
    const payload = { messaging_product: "whatsapp", ...body };
    const result = await withRetries(this.retryPolicy(), () => this.attempt(payload), {
      beforeWait: (failure, _attempt, waitMs) =>
        this.log.debug({ to, status: failure.status, waitMs }, "WhatsApp call retried"),
    });
    if (result.ok) return undefined;
    this.log.warn({ to, ...result.failure }, "WhatsApp call failed");
    return result.failure;
  }

  private retryPolicy(): RetryPolicy {
    return {
      ...DEFAULT_RETRY_POLICY,
      maxRetries: this.options.maxRetries ?? DEFAULT_RETRY_POLICY.maxRetries,
      baseDelayMs: this.options.backoffMs ?? DEFAULT_RETRY_POLICY.baseDelayMs,
      maxRetryAfterMs: this.options.maxRetryAfterMs ?? DEFAULT_RETRY_POLICY.maxRetryAfterMs,
    };
  }

  private async attempt(body: Record<string, unknown>): Promise<AttemptResult<true, Failure>> {
    let response: Response;
    try {
      response = await (this.options.fetch ?? fetch)(this.url, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${this.options.token}` },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.options.timeoutMs ?? 10_000),
      });
    } catch (cause) {
      // Not retried: after a timeout Meta may well have sent the message, and twice is worse than once.
      const reason = this.redact(cause instanceof Error ? cause.message : String(cause));
      return { ok: false, retryable: false, failure: { status: 0, reason } };
    }
    const text = await response.text().catch(() => "");
    if (response.ok) return { ok: true, value: true };
    const parsed = errorSchema.safeParse(safeJson(text));
    const code = parsed.success ? parsed.data.error.code : undefined;
    const reason = parsed.success
      ? (parsed.data.error.message ?? `status ${response.status}`)
      : `status ${response.status}, not a Graph API answer`;
    const { retryable } = classifyHttpFailure(response.status, text);
    const retryAfter = Number(response.headers.get("retry-after") ?? "1");
    return {
      ok: false,
      retryable,
      failure: {
        status: response.status,
        reason: this.redact(reason),
        ...(code === undefined ? {} : { code }),
      },
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
