import { createHmac } from "node:crypto";
import { z } from "zod";
import { aString, type SlackBotConfig } from "../../contracts/index.js";
import { createLogger, issuesFromZod, type Logger, ValidationError } from "../../core/index.js";
import type { Channel, ChannelRouter, SendOptions } from "./channel.js";
import { channelSecret, RecentIds } from "./platform-call.js";
import { SlackApi, type SlackApiOptions } from "./slack-api.js";
import { jsonBody, sameSecret, staleTimestamp } from "./webhook-route.js";

// The Events API's envelope (https://api.slack.com/apis/events-api#callback-field), only as far as routing needs.
// Loose: Slack adds fields, and none of them may turn a good event into a 400.
const envelopeSchema = z.looseObject({ type: aString() });
const challengeSchema = z.looseObject({ type: z.literal("url_verification"), challenge: aString() });
const callbackSchema = z.looseObject({
  type: z.literal("event_callback"),
  event_id: aString(),
  event: z.looseObject({ type: aString() }),
});
// A direct message to the app (message.im) or a mention of it in a channel (app_mention).
const messageEventSchema = z.looseObject({
  type: aString(),
  channel: aString(),
  channel_type: aString().optional(),
  user: aString().optional(),
  text: aString().optional(),
  ts: aString(),
  thread_ts: aString().optional(),
  subtype: aString().optional(),
  bot_id: aString().optional(),
});
// A slash command's form (https://api.slack.com/interactivity/slash-commands#app_command_handling).
const slashSchema = z.looseObject({
  command: aString(),
  text: aString().default(""),
  user_id: aString(),
  user_name: aString().optional(),
  channel_id: aString(),
});

/** What became of a signed request, and what Slack is answered. */
export type SlackOutcome =
  | { kind: "challenge"; challenge: string }
  | { kind: "accepted" }
  | { kind: "ignored" }
  /** A slash command answered at once, seen only by the person who typed it. */
  | { kind: "ephemeral"; text: string };

/** The words `/ironclaw <word> …` may start with: the router's commands, as a channel message spells them. */
const SLASH_WORDS = new Set([
  "pair",
  "new",
  "stop",
  "unpair",
  "feedback",
  "ack",
  "confirm",
  "reject",
  "revert",
]);

export interface SlackChannelOptions {
  /** The app name: the request URL's segment and the `slack:<bot>` channel label. */
  bot: string;
  token: string;
  /** Checks the Events API's requests; without one (Socket Mode) every request to the URL is refused. */
  signingSecret?: string;
  apiBaseUrl: string;
  /** The app's slash command, `/ironclaw` by default. */
  slashCommand: string;
  router: ChannelRouter;
  logger?: Logger;
  /** Web API tuning (timeouts, retries, fetch) for tests. */
  api?: Omit<SlackApiOptions, "baseUrl" | "token" | "logger">;
  /** Seconds since the epoch (tests move the clock). */
  now?: () => number;
}

const RECENT_EVENTS = 512;

/**
 * A Slack app as a channel (seed 003 §16.1): events in (signed Events API requests, or Socket Mode envelopes),
 * chat.postMessage out. A direct message to the app is a turn in the sender's conversation; a mention in a channel
 * is answered in a thread there (only for a paired user: anyone else gets one line); `/ironclaw pair <code>`,
 * `new`, `unpair`, `feedback` work in the app's direct messages. Every request must carry Slack's signature over
 * its raw body.
 */
export class SlackChannel implements Channel {
  readonly kind = "slack";
  readonly name: string;
  /** Slack cuts messages at 40,000 characters and advises 4,000; longer answers go out in pieces. */
  readonly maxMessageLength = 4000;
  readonly slashCommand: string;
  readonly pairingHelp: string;
  private readonly api: SlackApi;
  private readonly router: ChannelRouter;
  private readonly log: Logger;
  private readonly signingSecret: string | undefined;
  private readonly now: () => number;
  // Slack redelivers an event it thinks went unanswered (X-Slack-Retry-Num); one message must not become two turns.
  private readonly recent = new RecentIds<string>(RECENT_EVENTS);

  constructor(options: SlackChannelOptions) {
    this.name = options.bot;
    this.router = options.router;
    this.slashCommand = options.slashCommand;
    this.pairingHelp = `This conversation is not paired with IronClaw yet. Ask IronClaw for a pairing code, then send: ${options.slashCommand} pair <code>`;
    this.log = options.logger ?? createLogger("slack");
    this.signingSecret = options.signingSecret;
    this.now = options.now ?? (() => Date.now() / 1000);
    this.api = new SlackApi({
      ...options.api,
      baseUrl: options.apiBaseUrl,
      token: options.token,
      logger: this.log,
    });
  }

  /**
   * Whether a request is Slack's: `X-Slack-Signature` must be `v0=` and the HMAC-SHA256, keyed with the signing
   * secret, of `v0:<X-Slack-Request-Timestamp>:<raw body>`, compared in constant time; a timestamp more than five
   * minutes away from now is refused whatever its signature. Returns why not, or undefined when it is.
   */
  refusal(timestamp: string | undefined, signature: string | undefined, raw: Buffer): string | undefined {
    if (this.signingSecret === undefined)
      return "this app takes Slack's events over Socket Mode: it has no signing secret to check requests with";
    if (timestamp === undefined || signature === undefined)
      return "missing X-Slack-Signature or X-Slack-Request-Timestamp";
    const stale = staleTimestamp("X-Slack-Request-Timestamp", timestamp, this.now());
    if (stale) return stale;
    const hmac = createHmac("sha256", this.signingSecret).update(`v0:${timestamp}:`).update(raw);
    return sameSecret(signature, `v0=${hmac.digest("hex")}`)
      ? undefined
      : "X-Slack-Signature does not match the body";
  }

  /**
   * A signed request's body: an Events API envelope (JSON) or a slash command (a form). Returns at once; a turn's
   * answer goes out later through chat.postMessage, because Slack wants its answer within three seconds and
   * redelivers slow ones. Throws ValidationError naming the field when a request lacks what routing needs.
   */
  handle(contentType: string | undefined, raw: Buffer): SlackOutcome {
    if (contentType?.startsWith("application/x-www-form-urlencoded"))
      return this.handleSlashCommand(Object.fromEntries(new URLSearchParams(raw.toString("utf8"))));
    return this.handleEvent(jsonBody(raw, "slack-request", "must be JSON or a form"));
  }

  /**
   * An Events API body, from a request or a Socket Mode envelope's payload: a message or mention goes to the
   * router, an event delivered again (the same event_id) is taken once. Throws ValidationError naming the field.
   */
  handleEvent(body: unknown): SlackOutcome {
    const envelope = envelopeSchema.safeParse(body);
    if (!envelope.success) throw new ValidationError("slack-request", issuesFromZod(envelope.error));
    if (envelope.data.type === "url_verification") {
      const parsed = challengeSchema.safeParse(body);
      if (!parsed.success) throw new ValidationError("slack-request", issuesFromZod(parsed.error));
      return { kind: "challenge", challenge: parsed.data.challenge };
    }
    if (envelope.data.type !== "event_callback") return { kind: "ignored" };
    const parsed = callbackSchema.safeParse(body);
    if (!parsed.success) throw new ValidationError("slack-request", issuesFromZod(parsed.error));
    const { event_id: eventId, event } = parsed.data;
    if (event.type !== "message" && event.type !== "app_mention") return { kind: "ignored" };
    const message = messageEventSchema.safeParse(event);
    if (!message.success) throw new ValidationError("slack-request", issuesFromZod(message.error, ["event"]));
    const { channel, channel_type, user, text, ts, thread_ts, subtype, bot_id } = message.data;
    // Edits, joins and the app's own posts come as messages too: only what a person wrote is a turn.
    if (subtype !== undefined || bot_id !== undefined || user === undefined || text === undefined)
      return { kind: "ignored" };
    // A plain channel message reaches the app only as a mention (app_mention); its message copy is not a turn.
    if (event.type === "message" && channel_type !== "im") return { kind: "ignored" };
    if (this.recent.seenBefore(eventId)) return { kind: "ignored" };
    if (event.type === "message") {
      void this.router.receive({ channel: this, address: channel, senderId: user, text });
      return { kind: "accepted" };
    }
    // In a channel every member reads the answer: in a thread under the mention, and only for a paired user.
    const address = `${channel}/${thread_ts ?? ts}`;
    void this.router.receive({
      channel: this,
      address,
      senderId: user,
      text: text.replace(/<@[A-Z0-9]+>/g, "").trim(),
      pairedOnly: "Message me directly to pair with IronClaw; in channels I answer only people who have.",
    });
    return { kind: "accepted" };
  }

  pairingInstruction(code: string): string {
    return `In a direct message with the app, send ${this.slashCommand} pair ${code}`;
  }

  send(address: string, text: string, options?: SendOptions): Promise<boolean> {
    const slash = address.indexOf("/");
    const [channel, threadTs] =
      slash < 0 ? [address, undefined] : [address.slice(0, slash), address.slice(slash + 1)];
    // No buttons without Slack's interactivity endpoint: a button's command is spelled out instead.
    const hints = (options?.buttons ?? []).map((b) => {
      const [name, ...arg] = b.data.split(":");
      return `${b.text}: ${this.slashCommand} ${name} ${arg.join(":")}`;
    });
    const body = hints.length > 0 ? `${text}\n\n${hints.join("\n")}` : text;
    return this.api.postMessage(channel, body, threadTs);
  }

  /** A slash command's fields, from a request's form or a Socket Mode envelope's payload. */
  handleSlashCommand(form: Record<string, unknown>): SlackOutcome {
    const parsed = slashSchema.safeParse(form);
    if (!parsed.success) throw new ValidationError("slack-request", issuesFromZod(parsed.error));
    const { command, text, user_id: userId, user_name: userName, channel_id: channelId } = parsed.data;
    if (command !== this.slashCommand)
      return { kind: "ephemeral", text: `${command} is not a command of this app.` };
    // Pairing, and what follows it, belongs to the app's direct messages: a channel would show every notice.
    if (!channelId.startsWith("D"))
      return {
        kind: "ephemeral",
        text: `Use ${this.slashCommand} in a direct message with the app (its Messages tab).`,
      };
    const word = text.trim().split(/\s+/)[0]?.toLowerCase() ?? "";
    if (!SLASH_WORDS.has(word))
      return {
        kind: "ephemeral",
        text: `Usage: ${this.slashCommand} pair <code> | new | stop | unpair | feedback <text> | confirm|reject|revert <proposal id>. Anything else, just write it here.`,
      };
    void this.router.receive({
      channel: this,
      address: channelId,
      senderId: userId,
      ...(userName ? { senderName: userName } : {}),
      text: `/${text.trim()}`,
    });
    return { kind: "accepted" };
  }
}

export interface SlackChannelDeps {
  router: ChannelRouter;
  env?: NodeJS.ProcessEnv;
  logger?: Logger;
  api?: SlackChannelOptions["api"];
  now?: () => number;
}

/**
 * The channel for `[integrations.slack]` of ironclawd.toml, its token and signing secret (none in Socket Mode) read
 * from the config or the environment, registered with the router so notices reach it. Throws ConfigError naming
 * the key when a variable the config names is not set.
 */
export function createSlackChannel(config: SlackBotConfig, deps: SlackChannelDeps): SlackChannel {
  const env = deps.env ?? process.env;
  const signed = config.signing_secret !== undefined || config.signing_secret_env !== undefined;
  const channel = new SlackChannel({
    bot: config.bot,
    token: channelSecret("slack", "bot_token", config.bot_token, config.bot_token_env, env),
    ...(signed
      ? {
          signingSecret: channelSecret(
            "slack",
            "signing_secret",
            config.signing_secret,
            config.signing_secret_env,
            env,
          ),
        }
      : {}),
    apiBaseUrl: config.api_base_url,
    slashCommand: config.slash_command,
    router: deps.router,
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.api ? { api: deps.api } : {}),
    ...(deps.now ? { now: deps.now } : {}),
  });
  deps.router.register(channel);
  return channel;
}
