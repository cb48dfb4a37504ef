import type { KeyObject } from "node:crypto";
import { z } from "zod";
import { aBoolean, aNumber, aString, type DiscordBotConfig } from "../../contracts/index.js";
import { createLogger, issuesFromZod, type Logger, ValidationError } from "../../core/index.js";
import type { Channel, ChannelRouter } from "./channel.js";
import {
  callPlatform,
  channelSecret,
  type PlatformCallOptions,
  type PlatformFailure,
  RecentIds,
  safeJson,
} from "./platform-call.js";
import { ed25519PublicKey, ed25519Signed, jsonBody, staleTimestamp } from "./webhook-route.js";

/** Discord's interaction types and callback types (https://discord.com/developers/docs/interactions). */
const PING = 1;
const APPLICATION_COMMAND = 2;
const PONG = 1;
const CHANNEL_MESSAGE = 4;
const EPHEMERAL = 1 << 6;

const optionSchema = z.looseObject({ name: aString(), value: z.unknown().optional() });
const interactionSchema = z.looseObject({
  id: aString(),
  token: aString().optional(),
  type: aNumber().int("must be an integer"),
  channel_id: aString().optional(),
  guild_id: aString().optional(),
  user: z.looseObject({ id: aString(), username: aString().optional() }).optional(),
  member: z
    .looseObject({ user: z.looseObject({ id: aString(), username: aString().optional() }) })
    .optional(),
  data: z.looseObject({ name: aString(), options: z.array(optionSchema).optional() }).optional(),
});

// A message as the gateway's MESSAGE_CREATE carries it (https://discord.com/developers/docs/resources/message),
// only as far as routing needs. Loose: Discord adds fields.
const messageSchema = z.looseObject({
  id: aString(),
  channel_id: aString(),
  guild_id: aString().optional(),
  type: aNumber().int("must be an integer").optional(),
  content: z.string().default(""),
  author: z.looseObject({ id: aString(), username: aString().optional(), bot: aBoolean().optional() }),
  mentions: z.array(z.looseObject({ id: aString() })).default([]),
});
/** The message types a person writes: a plain message and a reply (joins, pins and the like are not turns). */
const PERSON_WRITTEN = new Set([0, 19]);

/** What a server's members read when someone not paired mentions the bot there. */
const PAIR_IN_DMS = "Message me directly to pair with IronClaw; in servers I answer only people who have.";

// GET /gateway/bot's answer: where the gateway is.
const gatewayBotSchema = z.looseObject({ url: z.string().regex(/^wss?:\/\//) });

/** The application's slash commands, registered with Discord at start (a bulk overwrite: the same each time). */
export const DISCORD_COMMANDS = [
  {
    name: "ask",
    description: "Ask your IronClaw agent",
    options: [{ type: 3, name: "text", description: "What to ask", required: true }],
  },
  {
    name: "pair",
    description: "Pair this Discord account with IronClaw",
    options: [{ type: 3, name: "code", description: "The pairing code from IronClaw", required: true }],
  },
  { name: "new", description: "Start a new conversation" },
  { name: "stop", description: "Stop the answer being written" },
  {
    name: "feedback",
    description: "Rate the last answer: up or down, and why",
    options: [{ type: 3, name: "text", description: "up|down [comment]", required: true }],
  },
  ...(["confirm", "reject", "revert"] as const).map((name) => ({
    name,
    description: `${name[0]?.toUpperCase()}${name.slice(1)} a settings change your agent proposed`,
    options: [
      {
        type: 3,
        name: "id",
        description: "The proposal's id (cfg_…), as its message names it",
        required: true,
      },
    ],
  })),
] as const;

/** What an interaction is answered with, in Discord's shape. */
export type DiscordReply = { type: number; data?: { content: string; flags?: number } };

export interface DiscordChannelOptions extends PlatformCallOptions {
  bot: string;
  applicationId: string;
  /** The application's Ed25519 public key, hex; without one (gateway only) the interactions URL refuses all. */
  publicKey?: string;
  token: string;
  apiBaseUrl: string;
  router: ChannelRouter;
  logger?: Logger;
  /** Seconds since the epoch (tests move the clock). */
  now?: () => number;
}

const RECENT = 512;

/**
 * A Discord application as a channel (seed 003 §16.1), over its interactions endpoint: `/ask`, `/pair`, `/new`,
 * `/stop`, `/feedback` and a settings proposal's `/confirm`, `/reject`, `/revert` in a direct message with the app, answered there through the bot. With the gateway
 * (discord-gateway.ts) plain DMs are turns too, and a mention in a server is answered there as a reply.
 */
export class DiscordChannel implements Channel {
  readonly kind = "discord";
  readonly name: string;
  /** Discord's limit for a message's content. */
  readonly maxMessageLength = 2000;
  readonly pairingHelp =
    "This Discord account is not paired with IronClaw yet. Ask IronClaw for a pairing code, then use /pair.";
  private readonly key: KeyObject | undefined;
  private readonly router: ChannelRouter;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly recent = new RecentIds<string>(RECENT);

  constructor(private readonly options: DiscordChannelOptions) {
    this.name = options.bot;
    this.router = options.router;
    this.log = options.logger ?? createLogger("discord");
    this.now = options.now ?? (() => Date.now() / 1000);
    this.key = options.publicKey === undefined ? undefined : ed25519PublicKey(options.publicKey);
  }

  /** Why a request is not Discord's (an Ed25519 signature over the timestamp and raw body, made within 5 minutes), or undefined. */
  refusal(signature: string | undefined, timestamp: string | undefined, raw: Buffer): string | undefined {
    if (this.key === undefined)
      return "this application takes interactions over the gateway: it has no public key to check requests with";
    if (signature === undefined || timestamp === undefined)
      return "missing X-Signature-Ed25519 or X-Signature-Timestamp";
    const stale = staleTimestamp("X-Signature-Timestamp", timestamp, this.now());
    if (stale) return stale;
    if (!/^[0-9a-f]{128}$/i.test(signature)) return "X-Signature-Ed25519 is not a signature";
    return ed25519Signed(this.key, Buffer.concat([Buffer.from(timestamp), raw]), signature)
      ? undefined
      : "X-Signature-Ed25519 does not match the body";
  }

  /** A signed interaction: a PING is answered PONG; a command goes to the router and is answered at once. */
  handle(raw: Buffer): DiscordReply {
    return this.handleInteraction(jsonBody(raw, "discord-interaction"));
  }

  /** An interaction's body, from the endpoint or the gateway (INTERACTION_CREATE); what it is answered with. */
  handleInteraction(body: unknown): DiscordReply {
    const parsed = interactionSchema.safeParse(body);
    if (!parsed.success) throw new ValidationError("discord-interaction", issuesFromZod(parsed.error));
    const interaction = parsed.data;
    if (interaction.type === PING) return { type: PONG };
    // An answer seen by everyone carries no flags at all (Discord's flags are a bitfield of named bits).
    const said = (content: string, ephemeral = true) => ({
      type: CHANNEL_MESSAGE,
      data: ephemeral ? { content, flags: EPHEMERAL } : { content },
    });
    if (interaction.type !== APPLICATION_COMMAND || !interaction.data)
      return said("IronClaw does not take that.");
    // A server's channel is read by its members, and notices would follow there: commands work in DMs only.
    if (interaction.guild_id !== undefined)
      return said("Use IronClaw's commands in a direct message with the app.");
    const user = interaction.user ?? interaction.member?.user;
    if (!user || interaction.channel_id === undefined)
      throw new ValidationError("discord-interaction", [
        { path: "$.user", message: "is required for a command in a direct message", code: "custom" },
      ]);
    if (this.recent.seenBefore(interaction.id)) return said("Already taken.");
    const option = (name: string) => {
      const value = interaction.data?.options?.find((o) => o.name === name)?.value;
      return typeof value === "string" ? value.trim() : "";
    };
    const { name } = interaction.data;
    const text =
      name === "ask"
        ? option("text")
        : name === "pair"
          ? `/pair ${option("code")}`
          : `/${name} ${option("text") || option("id")}`.trim();
    if (!DISCORD_COMMANDS.some((c) => c.name === name) || text === "")
      return said(`/${name} is not a command here.`);
    void this.router.receive({
      channel: this,
      address: interaction.channel_id,
      senderId: user.id,
      ...(user.username ? { senderName: user.username } : {}),
      text,
    });
    // The question stays in the conversation above its answer; a command's answer follows on its own.
    return name === "ask" ? said(`> ${text.slice(0, 1900)}`, false) : said("Sent to IronClaw.");
  }

  /**
   * A message the gateway delivered (MESSAGE_CREATE): a DM is a turn; in a server, only a mention of the bot is
   * taken, answered as a reply to it, and only for a paired user (anyone else gets one line). The bot's own
   * messages, other bots', and what no person wrote are ignored. Throws ValidationError naming the field.
   */
  handleGatewayMessage(message: unknown, botUserId: string): "accepted" | "ignored" {
    const parsed = messageSchema.safeParse(message);
    if (!parsed.success) throw new ValidationError("discord-message", issuesFromZod(parsed.error));
    const { id, channel_id: channelId, guild_id: guildId, type, content, author, mentions } = parsed.data;
    if (author.bot === true || author.id === botUserId) return "ignored";
    if (type !== undefined && !PERSON_WRITTEN.has(type)) return "ignored";
    if (guildId !== undefined && !mentions.some((m) => m.id === botUserId)) return "ignored";
    const text = content.replaceAll(`<@${botUserId}>`, "").replaceAll(`<@!${botUserId}>`, "").trim();
    // A resumed session replays what it missed; a message must not become two turns.
    if (text === "" || this.recent.seenBefore(`message:${id}`)) return "ignored";
    const sender = { senderId: author.id, ...(author.username ? { senderName: author.username } : {}) };
    void this.router.receive(
      guildId === undefined
        ? { channel: this, address: channelId, ...sender, text }
        : { channel: this, address: `${channelId}/${id}`, ...sender, text, pairedOnly: PAIR_IN_DMS },
    );
    return "accepted";
  }

  pairingInstruction(code: string): string {
    return `In a direct message with the app, use /pair with the code ${code}`;
  }

  /**
   * Posts into a channel (`<channel>`), or as a reply to a message (`<channel>/<message>`, a mention in a server);
   * mentions in an answer ping nobody.
   */
  async send(address: string, text: string): Promise<boolean> {
    const [channelId, replyTo] = address.split("/", 2);
    const failure = await this.call("POST", `/channels/${channelId}/messages`, {
      content: text,
      allowed_mentions: { parse: [] },
      ...(replyTo ? { message_reference: { message_id: replyTo, fail_if_not_exists: false } } : {}),
    });
    if (failure) this.log.warn({ channel: channelId, ...failure }, "Discord message not sent");
    return failure === undefined;
  }

  /**
   * An interaction the gateway delivered (an application without an interactions URL gets them there), answered
   * through the HTTP API's callback instead of a response. Throws ValidationError naming the field.
   */
  async answerInteraction(body: unknown): Promise<boolean> {
    const parsed = interactionSchema.safeParse(body);
    const token = parsed.success ? parsed.data.token : undefined;
    if (!parsed.success || token === undefined)
      throw new ValidationError("discord-interaction", [
        { path: "$.token", message: "is required to answer an interaction", code: "custom" },
      ]);
    const reply = this.handleInteraction(body);
    const failure = await this.call("POST", `/interactions/${parsed.data.id}/${token}/callback`, reply);
    if (failure)
      this.log.warn({ interaction: parsed.data.id, ...failure }, "Discord interaction not answered");
    return failure === undefined;
  }

  /** Where the bot's gateway is (GET /gateway/bot), or why not: status 401 when the token is refused. */
  async gatewayUrl(signal?: AbortSignal): Promise<{ url: string } | { failure: PlatformFailure }> {
    let url: string | undefined;
    const take = (text: string) => {
      const answer = gatewayBotSchema.safeParse(safeJson(text));
      if (answer.success) url = answer.data.url;
      return answer.success;
    };
    const failure = await this.call("GET", "/gateway/bot", undefined, {
      take,
      ...(signal ? { signal } : {}),
    });
    if (failure) return { failure };
    return url === undefined ? { failure: { status: 200, reason: "no gateway URL in the answer" } } : { url };
  }

  /** Registers the application's slash commands (a bulk overwrite); false when Discord refused. */
  async registerCommands(): Promise<boolean> {
    const failure = await this.call(
      "PUT",
      `/applications/${this.options.applicationId}/commands`,
      DISCORD_COMMANDS,
    );
    if (failure) this.log.error(failure, "could not register the Discord commands");
    return failure === undefined;
  }

  /** One call to the HTTP API; `take` reads a successful answer's body, and false makes it a failure. */
  private call(
    method: string,
    path: string,
    body: unknown,
    { take, signal }: { take?: (text: string) => boolean; signal?: AbortSignal } = {},
  ): Promise<PlatformFailure | undefined> {
    return callPlatform({
      url: `${this.options.apiBaseUrl.replace(/\/+$/, "")}${path}`,
      method,
      headers: {
        authorization: `Bot ${this.options.token}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body,
      secret: this.options.token,
      options: this.options,
      ...(signal ? { signal } : {}),
      // A 429 says how long to wait in its body (seconds, fractional) as well as in Retry-After.
      read: ({ ok, status, text }) =>
        ok
          ? take === undefined || take(text)
            ? { ok: true }
            : { ok: false, reason: "not the answer expected", retryable: false }
          : {
              ok: false,
              reason: text.slice(0, 200) || `status ${status}`,
              ...retryAfterIn(text),
            },
    });
  }
}

/** The channel for `[integrations.discord]`, its token from the config or the environment, registered with the router. */
export function createDiscordChannel(
  config: DiscordBotConfig,
  deps: { router: ChannelRouter; env?: NodeJS.ProcessEnv; logger?: Logger; fetch?: typeof fetch },
): DiscordChannel {
  const env = deps.env ?? process.env;
  const token = channelSecret("discord", "bot_token", config.bot_token, config.bot_token_env, env);
  const applicationId = channelSecret("discord", "application_id", config.application_id, undefined, env);
  // Only the interactions URL needs the key; a gateway-only application is not given one.
  const publicKey =
    config.public_key !== undefined || !config.gateway
      ? channelSecret("discord", "public_key", config.public_key, undefined, env)
      : undefined;
  const channel = new DiscordChannel({
    bot: config.bot,
    applicationId,
    ...(publicKey === undefined ? {} : { publicKey }),
    token,
    apiBaseUrl: config.api_base_url,
    router: deps.router,
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  deps.router.register(channel);
  return channel;
}

/** A 429's wait as Discord's body gives it (seconds, fractional); absent, the Retry-After header's is taken. */
function retryAfterIn(text: string): { retryAfterSeconds?: number } {
  const seconds = (safeJson(text) as { retry_after?: unknown } | undefined)?.retry_after;
  return typeof seconds === "number" ? { retryAfterSeconds: seconds } : {};
}
