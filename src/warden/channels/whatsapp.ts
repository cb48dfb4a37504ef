import { createHmac } from "node:crypto";
import { z } from "zod";
import { aString, type WhatsappBotConfig } from "../../contracts/index.js";
import { createLogger, issuesFromZod, type Logger, ValidationError } from "../../core/index.js";
import type { Channel, ChannelRouter } from "./channel.js";
import { channelSecret, RecentIds } from "./platform-call.js";
import { jsonBody, sameSecret } from "./webhook-route.js";
import { OUTSIDE_WINDOW_CODE, WhatsappApi, type WhatsappApiOptions } from "./whatsapp-api.js";

/** Meta lets a business send free-form messages only this long after the person's last message. */
export const SERVICE_WINDOW_MS = 24 * 60 * 60 * 1000;

// A webhook notification (https://developers.facebook.com/docs/whatsapp/cloud-api/webhooks/components), only as
// far as routing needs. Loose: Meta adds fields, and none of them may turn a good notification into a 400.
const notificationSchema = z.looseObject({
  object: aString(),
  entry: z
    .array(
      z.looseObject({
        changes: z
          .array(
            z.looseObject({
              field: aString().optional(),
              value: z.looseObject({
                metadata: z.looseObject({ phone_number_id: aString() }).optional(),
                contacts: z
                  .array(
                    z.looseObject({
                      // Absent for a user Meta names only by a business-scoped id (a username, no number).
                      wa_id: aString().optional(),
                      profile: z.looseObject({ name: aString() }).optional(),
                    }),
                  )
                  .optional(),
                messages: z
                  .array(
                    z.looseObject({
                      from: aString().optional(),
                      from_user_id: aString().optional(),
                      id: aString(),
                      type: aString(),
                      text: z.looseObject({ body: aString() }).optional(),
                    }),
                  )
                  .optional(),
              }),
            }),
          )
          .default([]),
      }),
    )
    .default([]),
});

export interface WhatsappChannelOptions {
  bot: string;
  phoneNumberId: string;
  token: string;
  appSecret: string;
  verifyToken: string;
  apiBaseUrl: string;
  /** A template for notices outside the 24-hour window; without one they are not sent. */
  noticeTemplate?: { name: string; language: string };
  router: ChannelRouter;
  logger?: Logger;
  api?: Omit<WhatsappApiOptions, "baseUrl" | "token" | "phoneNumberId" | "logger">;
  /** Milliseconds since the epoch (tests move the clock). */
  now?: () => number;
}

const RECENT_MESSAGES = 512;
/** People whose 24-hour windows are remembered at once (every number that writes opens one). */
const HEARD_KEPT = 10_000;
/** What a template's body parameter may hold (Meta refuses longer ones). */
const TEMPLATE_PARAMETER_MAX = 1024;

/**
 * A WhatsApp number on Meta's Cloud API as a channel (seed 003 §16.1): signed webhook notifications in, text out,
 * received messages marked read. Meant for a user's own assistant on their own number: Meta's terms have barred
 * general-purpose AI assistants on the Business API since 2026-01-15. Free-form messages go out only within 24
 * hours of the person's last message; later ones use the configured template, or are not sent (logged).
 */
export class WhatsappChannel implements Channel {
  readonly kind = "whatsapp";
  readonly name: string;
  /** A text message's body holds at most 4,096 characters. */
  readonly maxMessageLength = 4096;
  private readonly api: WhatsappApi;
  private readonly router: ChannelRouter;
  private readonly log: Logger;
  private readonly phoneNumberId: string;
  private readonly appSecret: string;
  private readonly verifyToken: string;
  private readonly noticeTemplate: { name: string; language: string } | undefined;
  private readonly now: () => number;
  // Meta redelivers a notification it thinks went unanswered; one message must not become two turns.
  private readonly recent = new RecentIds<string>(RECENT_MESSAGES);
  /** When each person last wrote: their 24-hour window. Kept in memory; after a restart it opens with their next message. */
  private readonly lastHeard = new Map<string, number>();

  constructor(options: WhatsappChannelOptions) {
    this.name = options.bot;
    this.router = options.router;
    this.log = options.logger ?? createLogger("whatsapp");
    this.phoneNumberId = options.phoneNumberId;
    this.appSecret = options.appSecret;
    this.verifyToken = options.verifyToken;
    this.noticeTemplate = options.noticeTemplate;
    this.now = options.now ?? Date.now;
    this.api = new WhatsappApi({
      ...options.api,
      baseUrl: options.apiBaseUrl,
      phoneNumberId: options.phoneNumberId,
      token: options.token,
      logger: this.log,
    });
  }

  /** Meta's subscription check: the challenge to echo when the mode and the verify token are right. */
  verification(
    mode: string | undefined,
    token: string | undefined,
    challenge: string | undefined,
  ): string | undefined {
    if (mode !== "subscribe" || token === undefined || challenge === undefined) return undefined;
    return sameSecret(token, this.verifyToken) ? challenge : undefined;
  }

  /** Why a notification is not Meta's (`X-Hub-Signature-256` must be `sha256=` and the app secret's HMAC of the raw body), or undefined. */
  refusal(signature: string | undefined, raw: Buffer): string | undefined {
    if (signature === undefined) return "missing X-Hub-Signature-256";
    const expected = `sha256=${createHmac("sha256", this.appSecret).update(raw).digest("hex")}`;
    return sameSecret(signature, expected) ? undefined : "X-Hub-Signature-256 does not match the body";
  }

  /**
   * A signed notification: each new text message to this number becomes a message for the router (answered later
   * through the API) and is marked read; anything else is counted as ignored. Throws ValidationError naming the
   * field when the notification lacks what routing needs.
   */
  handle(raw: Buffer): { accepted: number; ignored: number } {
    const body = jsonBody(raw, "whatsapp-notification");
    const parsed = notificationSchema.safeParse(body);
    if (!parsed.success) throw new ValidationError("whatsapp-notification", issuesFromZod(parsed.error));
    const counts = { accepted: 0, ignored: 0 };
    if (parsed.data.object !== "whatsapp_business_account") return counts;
    for (const entry of parsed.data.entry)
      for (const { value } of entry.changes) {
        // Another number of the same business account is not this channel's to answer.
        if (value.metadata?.phone_number_id !== this.phoneNumberId) continue;
        for (const message of value.messages ?? []) {
          if (this.recent.seenBefore(message.id)) {
            counts.ignored++;
            continue;
          }
          if (message.from === undefined) {
            // Pairing and answers go by phone number; a user Meta names only by a business-scoped id has none.
            this.log.warn(
              { bot: this.name, user_id: message.from_user_id, message_id: message.id },
              "a WhatsApp message came without a phone number (a business-scoped user id only): this channel answers phone numbers, so it is left unanswered",
            );
            counts.ignored++;
            continue;
          }
          const from = message.from;
          this.heard(from);
          void this.api.markRead(message.id);
          const name = value.contacts?.find((c) => c.wa_id === from)?.profile?.name;
          const sender = { channel: this, address: from, senderId: from };
          if (message.type === "text" && message.text) {
            void this.router.receive({
              ...sender,
              ...(name ? { senderName: name } : {}),
              text: message.text.body,
            });
            counts.accepted++;
          } else {
            // Said to a paired person only: a stranger's pictures get no answer each (their text gets the
            // router's pairing help, once per window).
            if (this.router.isPaired(this, from))
              void this.send(from, "I can read text messages only; please write what you need.");
            counts.ignored++;
          }
        }
      }
    return counts;
  }

  /** Opens the person's 24-hour window; the oldest window is forgotten past HEARD_KEPT people. */
  private heard(from: string): void {
    this.lastHeard.delete(from);
    this.lastHeard.set(from, this.now());
    if (this.lastHeard.size > HEARD_KEPT) {
      const oldest = this.lastHeard.keys().next().value;
      if (oldest !== undefined) this.lastHeard.delete(oldest);
    }
  }

  pairingInstruction(code: string): string {
    return `Send /pair ${code} to the number on WhatsApp.`;
  }

  /**
   * Inside the person's 24-hour window, the text; outside it, the notice template when one is configured, else
   * nothing (logged, and false). A text Meta refuses as outside the window is sent as the template too.
   */
  async send(address: string, text: string): Promise<boolean> {
    const heard = this.lastHeard.get(address);
    if (heard !== undefined && this.now() - heard < SERVICE_WINDOW_MS) {
      const failure = await this.api.sendText(address, text);
      if (failure === undefined) return true;
      if (failure.code !== OUTSIDE_WINDOW_CODE) return false;
    }
    return this.sendNotice(address, text);
  }

  private async sendNotice(address: string, text: string): Promise<boolean> {
    if (!this.noticeTemplate) {
      this.log.warn(
        { to: address },
        "not sent: the person has not written in the last 24 hours, and [integrations.whatsapp] names no notice_template",
      );
      return false;
    }
    const { name, language } = this.noticeTemplate;
    const parameter =
      text.length > TEMPLATE_PARAMETER_MAX ? `${text.slice(0, TEMPLATE_PARAMETER_MAX - 1)}…` : text;
    return (await this.api.sendTemplate(address, name, language, parameter)) === undefined;
  }
}

export interface WhatsappChannelDeps {
  router: ChannelRouter;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  api?: WhatsappChannelOptions["api"];
  now?: () => number;
}

/**
 * The channel for `[integrations.whatsapp]` of ironclawd.toml, its secrets read from the config or the environment,
 * registered with the router so notices reach it. Throws ConfigError naming the key a missing variable is named by.
 */
export function createWhatsappChannel(config: WhatsappBotConfig, deps: WhatsappChannelDeps): WhatsappChannel {
  const env = deps.env ?? process.env;
  const secret = (key: "access_token" | "app_secret" | "verify_token") =>
    channelSecret("whatsapp", key, config[key], config[`${key}_env`], env);
  const channel = new WhatsappChannel({
    bot: config.bot,
    phoneNumberId: channelSecret("whatsapp", "phone_number_id", config.phone_number_id, undefined, env),
    token: secret("access_token"),
    appSecret: secret("app_secret"),
    verifyToken: secret("verify_token"),
    apiBaseUrl: config.api_base_url,
    ...(config.notice_template
      ? { noticeTemplate: { name: config.notice_template, language: config.template_language } }
      : {}),
    router: deps.router,
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.api ? { api: deps.api } : {}),
    ...(deps.now ? { now: deps.now } : {}),
  });
  deps.router.register(channel);
  return channel;
}
