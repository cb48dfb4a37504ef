import { z } from "zod";
import { createLogger, type Logger } from "../../core/index.js";
import { callPlatform, type PlatformCallOptions, safeJson } from "./platform-call.js";

export interface TelegramApiOptions extends PlatformCallOptions {
  /** `https://api.telegram.org`, a self-hosted Bot API server, or a local fake in tests. */
  baseUrl: string;
  token: string;
  logger?: Logger;
}

// Bot API answers (https://core.telegram.org/bots/api#making-requests); only what decides a retry is read.
const answerSchema = z.looseObject({
  ok: z.boolean(),
  description: z.string().optional(),
  parameters: z.looseObject({ retry_after: z.number().optional() }).optional(),
  result: z.unknown().optional(),
});
const botSchema = z.looseObject({ username: z.string().regex(/^\w{5,32}$/) });

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

  /** The bot's username (getMe), for its `t.me/<username>` links; undefined when Telegram did not say. */
  async username(): Promise<string | undefined> {
    let username: string | undefined;
    await this.call("getMe", {}, {}, (result) => {
      const bot = botSchema.safeParse(result);
      if (bot.success) username = bot.data.username;
    });
    return username;
  }

  /** Points the bot's updates at the warden; Telegram then echoes `secretToken` on every webhook call. */
  setWebhook(url: string, secretToken: string): Promise<boolean> {
    return this.call(
      "setWebhook",
      { url, secret_token: secretToken, allowed_updates: ["message", "callback_query"] },
      {},
    );
  }

  /**
   * 429 waits what Telegram asks (in the body, not a header); 5xx backs off; anything else (400 chat not found,
   * 403 blocked) is final. The token is part of every URL, so URLs are never logged.
   */
  private async call(
    method: string,
    body: Record<string, unknown>,
    context: object,
    took?: (result: unknown) => void,
  ): Promise<boolean> {
    const failure = await callPlatform({
      url: `${this.baseUrl}/bot${this.options.token}/${method}`,
      headers: { "content-type": "application/json" },
      body,
      secret: this.options.token,
      options: this.options,
      read: ({ ok, status, text }) => {
        const answer = answerSchema.safeParse(safeJson(text));
        if (ok && answer.success && answer.data.ok) {
          took?.(answer.data.result);
          return { ok: true };
        }
        return {
          ok: false,
          reason: answer.success
            ? (answer.data.description ?? `status ${status}`)
            : `status ${status}, not a Bot API answer`,
          retryAfterSeconds: (answer.success ? answer.data.parameters?.retry_after : undefined) ?? 1,
        };
      },
      onRetry: (f, waitMs) =>
        this.log.debug({ method, ...context, status: f.status, waitMs }, "Bot API call retried"),
    });
    if (failure === undefined) return true;
    this.log.warn(
      { method, ...context, status: failure.status, reason: failure.reason },
      "Bot API call failed",
    );
    return false;
  }
}

/** An inline keyboard button; `data` comes back in the callback_query when it is pressed. */
export interface InlineButton {
  text: string;
  data: string;
}

/** Telegram chat ids are integers (up to 52 bits); `@channelname` stays a string. */
function chatIdValue(chatId: string): number | string {
  return /^-?\d{1,16}$/.test(chatId) && Number.isSafeInteger(Number(chatId)) ? Number(chatId) : chatId;
}
