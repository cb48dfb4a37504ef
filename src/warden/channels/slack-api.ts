import { z } from "zod";
import { createLogger, type Logger } from "../../core/index.js";
import { callPlatform, type PlatformCallOptions, safeJson } from "./platform-call.js";

export interface SlackApiOptions extends PlatformCallOptions {
  /** `https://slack.com/api`, or a local fake in tests. */
  baseUrl: string;
  /** The bot token (xoxb-…): sent as a bearer token, never in a URL, never logged. */
  token: string;
  logger?: Logger;
}

// Web API answers (https://api.slack.com/web#responses): `ok`, and `error` when not.
const answerSchema = z.looseObject({ ok: z.boolean(), error: z.string().optional() });

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
    const failure = await callPlatform({
      url: `${this.baseUrl}/chat.postMessage`,
      headers: {
        "content-type": "application/json; charset=utf-8",
        authorization: `Bearer ${this.options.token}`,
      },
      body: { channel, text, mrkdwn: false, ...(threadTs ? { thread_ts: threadTs } : {}) },
      secret: this.options.token,
      options: this.options,
      // 429 waits what Retry-After asks; an `ok: false` answer (a 200) is final.
      read: ({ ok, status, headers, text: body }) => {
        const answer = answerSchema.safeParse(safeJson(body));
        if (ok && answer.success && answer.data.ok) return { ok: true };
        return {
          ok: false,
          reason: answer.success
            ? (answer.data.error ?? `status ${status}`)
            : `status ${status}, not a Web API answer`,
          retryAfterSeconds: Number(headers.get("retry-after") ?? "1"),
          ...(ok ? { retryable: false } : {}),
        };
      },
      onRetry: (f, waitMs) => this.log.debug({ channel, status: f.status, waitMs }, "Slack call retried"),
    });
    if (failure) this.log.warn({ method: "chat.postMessage", channel, ...failure }, "Slack call failed");
    return failure === undefined;
  }
}
