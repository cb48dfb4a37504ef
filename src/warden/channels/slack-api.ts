import { z } from "zod";
import { createLogger, type Logger } from "../../core/index.js";
import { callPlatform, type PlatformCallOptions, type PlatformFailure, safeJson } from "./platform-call.js";

export interface SlackApiOptions extends PlatformCallOptions {
  /** `https://slack.com/api`, or a local fake in tests. */
  baseUrl: string;
  /** The bot token (xoxb-…), or the app-level token (xapp-…) for Socket Mode: sent as a bearer token, never in a URL, never logged. */
  token: string;
  logger?: Logger;
}

// Web API answers (https://api.slack.com/web#responses): `ok`, and `error` when not.
const answerSchema = z.looseObject({ ok: z.boolean(), error: z.string().optional() });
// apps.connections.open's answer: the WebSocket URL of one Socket Mode connection.
const connectionSchema = z.looseObject({ url: z.string().regex(/^wss?:\/\//) });

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
      read: ({ ok, status, text: body }) => {
        const answer = answerSchema.safeParse(safeJson(body));
        if (ok && answer.success && answer.data.ok) return { ok: true };
        return {
          ok: false,
          reason: answer.success
            ? (answer.data.error ?? `status ${status}`)
            : `status ${status}, not a Web API answer`,
          ...(ok ? { retryable: false } : {}),
        };
      },
      onRetry: (f, waitMs) => this.log.debug({ channel, status: f.status, waitMs }, "Slack call retried"),
    });
    if (failure) this.log.warn({ method: "chat.postMessage", channel, ...failure }, "Slack call failed");
    return failure === undefined;
  }

  /**
   * apps.connections.open, with the app-level token: the URL of a new Socket Mode connection (single use, it
   * expires soon), or why there is none; the reason is Slack's error code when it gave one (`invalid_auth`).
   */
  async openConnection(signal?: AbortSignal): Promise<{ url: string } | { failure: PlatformFailure }> {
    let url: string | undefined;
    const failure = await callPlatform({
      url: `${this.baseUrl}/apps.connections.open`,
      headers: {
        "content-type": "application/json; charset=utf-8",
        authorization: `Bearer ${this.options.token}`,
      },
      body: {},
      secret: this.options.token,
      options: this.options,
      ...(signal ? { signal } : {}),
      read: ({ ok, status, text: body }) => {
        const json = safeJson(body);
        const answer = answerSchema.safeParse(json);
        const connection = connectionSchema.safeParse(json);
        if (ok && answer.success && answer.data.ok && connection.success) {
          url = connection.data.url;
          return { ok: true };
        }
        return {
          ok: false,
          reason: answer.success
            ? (answer.data.error ?? (answer.data.ok ? "no WebSocket URL in the answer" : `status ${status}`))
            : `status ${status}, not a Web API answer`,
          ...(ok ? { retryable: false } : {}),
        };
      },
    });
    return url === undefined ? { failure: failure ?? { status: 0, reason: "no URL" } } : { url };
  }
}
