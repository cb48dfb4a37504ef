import { createHash, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import { aBoolean, aNumber, aString, isJsonObject, type TelegramBotConfig } from "../../contracts/index.js";
import { createLogger, issuesFromZod, type Logger, ValidationError } from "../../core/index.js";
import type { Channel, ChannelRouter, SendOptions } from "./channel.js";
import { channelSecret, RecentIds } from "./platform-call.js";
import { TelegramApi, type TelegramApiOptions } from "./telegram-api.js";

// Telegram's Update (https://core.telegram.org/bots/api#update), only as far as a text message needs. Loose:
// Telegram adds fields all the time, and none of them may turn a good update into a 400.
const updateSchema = z.looseObject({
  update_id: aNumber().int("must be an integer"),
  message: z.unknown().optional(),
  callback_query: z.unknown().optional(),
});
// A pressed inline button (https://core.telegram.org/bots/api#callbackquery): who pressed it, in which chat, and
// the button's data.
const callbackSchema = z.looseObject({
  id: aString(),
  data: aString().optional(),
  from: z.looseObject({ id: aNumber().int("must be an integer"), is_bot: aBoolean().optional() }),
  message: z
    .looseObject({ chat: z.looseObject({ id: aNumber().int("must be an integer"), type: aString() }) })
    .optional(),
});
const textMessageSchema = z.looseObject({
  text: aString(),
  chat: z.looseObject({ id: aNumber().int("must be an integer"), type: aString() }),
  from: z.looseObject({
    id: aNumber().int("must be an integer"),
    is_bot: aBoolean().optional(),
    first_name: aString().optional(),
    last_name: aString().optional(),
    username: aString().optional(),
  }),
});

/** What became of a well-formed update: handed to the router, or deliberately left alone. */
export type UpdateOutcome = "accepted" | "ignored";

export interface TelegramChannelOptions {
  /** The bot name: the webhook's URL segment and the `telegram:<bot>` channel label. */
  bot: string;
  token: string;
  secretToken: string;
  apiBaseUrl: string;
  router: ChannelRouter;
  logger?: Logger;
  /** Bot API tuning (timeouts, retries, fetch) for tests. */
  api?: Omit<TelegramApiOptions, "baseUrl" | "token" | "logger">;
}

const RECENT_UPDATES = 256;

/** A Telegram bot as a channel: webhook updates in, Bot API sendMessage out (seed 003 §16.1). */
export class TelegramChannel implements Channel {
  readonly kind = "telegram";
  readonly name: string;
  readonly maxMessageLength = 4096;
  private readonly api: TelegramApi;
  private readonly router: ChannelRouter;
  private readonly log: Logger;
  private readonly secretToken: string;
  private readonly secretDigest: Buffer;
  // Telegram redelivers an update it thinks went unanswered; one message must not become two turns.
  private readonly recent = new RecentIds<number>(RECENT_UPDATES);
  private botUsername: string | undefined;

  constructor(options: TelegramChannelOptions) {
    this.name = options.bot;
    this.router = options.router;
    this.log = options.logger ?? createLogger("telegram");
    this.secretToken = options.secretToken;
    this.secretDigest = digest(options.secretToken);
    this.api = new TelegramApi({
      ...options.api,
      baseUrl: options.apiBaseUrl,
      token: options.token,
      logger: this.log,
    });
  }

  /** Whether a webhook call carries the bot's secret. Digests make the lengths equal and the time constant. */
  checkSecret(header: string | undefined): boolean {
    return header !== undefined && timingSafeEqual(digest(header), this.secretDigest);
  }

  /**
   * Takes a webhook update and returns at once; the answer goes out later through sendMessage, because Telegram
   * waits for the webhook's reply and redelivers slow ones. Throws ValidationError naming the field when a text
   * message lacks what routing needs; other kinds of update (edits, photos) are ignored. A pressed button is
   * routed as the slash command its data spells (`ack:<id>` as `/ack <id>`).
   */
  handleUpdate(update: unknown): UpdateOutcome {
    const outer = updateSchema.safeParse(update);
    if (!outer.success) throw new ValidationError("telegram-update", issuesFromZod(outer.error));
    const { update_id: updateId, message, callback_query: callback } = outer.data;
    if (callback !== undefined) return this.handleCallback(updateId, callback);
    if (!isJsonObject(message) || message.text === undefined) return "ignored";
    const parsed = textMessageSchema.safeParse(message);
    if (!parsed.success)
      throw new ValidationError("telegram-update", issuesFromZod(parsed.error, ["message"]));
    const { text, chat, from } = parsed.data;
    // A personal agent answers from its user's memory; in a group every member would read those answers.
    if (chat.type !== "private" || from.is_bot === true) return "ignored";
    if (this.recent.seenBefore(updateId)) return "ignored";
    const senderName = [from.first_name, from.last_name].filter(Boolean).join(" ") || from.username;
    void this.router.receive({
      channel: this,
      address: String(chat.id),
      senderId: String(from.id),
      ...(senderName ? { senderName } : {}),
      text,
    });
    return "accepted";
  }

  pairingInstruction(code: string): string {
    const send = `/pair ${code} to the bot in a private chat.`;
    // Telegram's deep link opens the bot and sends `/start <code>`, which pairs as /pair does.
    return this.botUsername
      ? `Open https://t.me/${this.botUsername}?start=${code} — or send ${send}`
      : `Send ${send}`;
  }

  /** Asks Telegram for the bot's username, so pairing instructions can carry its t.me link. Never throws. */
  async learnUsername(): Promise<void> {
    this.botUsername = await this.api.username();
  }

  send(address: string, text: string, options?: SendOptions): Promise<boolean> {
    return this.api.sendMessage(address, text, options?.buttons);
  }

  private handleCallback(updateId: number, callback: unknown): UpdateOutcome {
    const parsed = callbackSchema.safeParse(callback);
    if (!parsed.success)
      throw new ValidationError("telegram-update", issuesFromZod(parsed.error, ["callback_query"]));
    const { id, data, from, message } = parsed.data;
    const command = /^([a-z]+):(\S+)$/.exec(data ?? "");
    if (!command || message?.chat.type !== "private" || from.is_bot === true) return "ignored";
    if (this.recent.seenBefore(updateId)) return "ignored";
    void this.api.answerCallbackQuery(id);
    void this.router.receive({
      channel: this,
      address: String(message.chat.id),
      senderId: String(from.id),
      text: `/${command[1]} ${command[2]}`,
    });
    return "accepted";
  }

  /** Registers `url` as the bot's webhook with the bot's secret (run once when the public URL is known). */
  registerWebhook(url: string): Promise<boolean> {
    return this.api.setWebhook(url, this.secretToken);
  }
}

export interface TelegramChannelDeps {
  router: ChannelRouter;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  api?: TelegramChannelOptions["api"];
}

/**
 * The channel for `[integrations.telegram]` of ironclawd.toml, with its token and secret read from the config or
 * the environment, registered with the router so job notices reach it. Throws ConfigError naming the key when
 * a variable the config names is not set.
 */
export function createTelegramChannel(
  config: TelegramBotConfig,
  deps: TelegramChannelDeps & { generatedSecret?: string },
): TelegramChannel {
  const env = deps.env ?? process.env;
  const channel = new TelegramChannel({
    bot: config.bot,
    token: channelSecret("telegram", "token", config.token, config.token_env, env),
    secretToken:
      config.secret_token === undefined && config.secret_token_env === undefined && deps.generatedSecret
        ? deps.generatedSecret
        : channelSecret("telegram", "secret_token", config.secret_token, config.secret_token_env, env),
    apiBaseUrl: config.api_base_url,
    router: deps.router,
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.api ? { api: deps.api } : {}),
  });
  deps.router.register(channel);
  return channel;
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}
