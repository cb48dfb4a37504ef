import { createPublicKey, type KeyObject, verify } from "node:crypto";
import { z } from "zod";
import { aNumber, aString, type DiscordBotConfig } from "../../contracts/index.js";
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
import { jsonBody, staleTimestamp } from "./webhook-route.js";

/** Discord's interaction types and callback types (https://discord.com/developers/docs/interactions). */
const PING = 1;
const APPLICATION_COMMAND = 2;
const PONG = 1;
const CHANNEL_MESSAGE = 4;
const EPHEMERAL = 1 << 6;

const optionSchema = z.looseObject({ name: aString(), value: z.unknown().optional() });
const interactionSchema = z.looseObject({
  id: aString(),
  type: aNumber().int("must be an integer"),
  channel_id: aString().optional(),
  guild_id: aString().optional(),
  user: z.looseObject({ id: aString(), username: aString().optional() }).optional(),
  member: z
    .looseObject({ user: z.looseObject({ id: aString(), username: aString().optional() }) })
    .optional(),
  data: z.looseObject({ name: aString(), options: z.array(optionSchema).optional() }).optional(),
});

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
] as const;

/** What an interaction is answered with, in Discord's shape. */
export type DiscordReply = { type: number; data?: { content: string; flags?: number } };

export interface DiscordChannelOptions extends PlatformCallOptions {
  bot: string;
  applicationId: string;
  /** The application's Ed25519 public key, hex. */
  publicKey: string;
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
 * `/stop` and `/feedback` in a direct message with the app, answered there through the bot. Messages and mentions
 * outside commands need Discord's gateway, which this channel does not hold open.
 */
export class DiscordChannel implements Channel {
  readonly kind = "discord";
  readonly name: string;
  /** Discord's limit for a message's content. */
  readonly maxMessageLength = 2000;
  readonly pairingHelp =
    "This Discord account is not paired with IronClaw yet. Ask IronClaw for a pairing code, then use /pair.";
  private readonly key: KeyObject;
  private readonly router: ChannelRouter;
  private readonly log: Logger;
  private readonly now: () => number;
  private readonly recent = new RecentIds<string>(RECENT);

  constructor(private readonly options: DiscordChannelOptions) {
    this.name = options.bot;
    this.router = options.router;
    this.log = options.logger ?? createLogger("discord");
    this.now = options.now ?? (() => Date.now() / 1000);
    // A raw Ed25519 key as a JWK: its 32 bytes, base64url.
    this.key = createPublicKey({
      key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(options.publicKey, "hex").toString("base64url") },
      format: "jwk",
    });
  }

  /** Why a request is not Discord's (an Ed25519 signature over the timestamp and raw body, made within 5 minutes), or undefined. */
  refusal(signature: string | undefined, timestamp: string | undefined, raw: Buffer): string | undefined {
    if (signature === undefined || timestamp === undefined)
      return "missing X-Signature-Ed25519 or X-Signature-Timestamp";
    const stale = staleTimestamp("X-Signature-Timestamp", timestamp, this.now());
    if (stale) return stale;
    if (!/^[0-9a-f]{128}$/i.test(signature)) return "X-Signature-Ed25519 is not a signature";
    const signed = Buffer.concat([Buffer.from(timestamp), raw]);
    return verify(null, signed, this.key, Buffer.from(signature, "hex"))
      ? undefined
      : "X-Signature-Ed25519 does not match the body";
  }

  /** A signed interaction: a PING is answered PONG; a command goes to the router and is answered at once. */
  handle(raw: Buffer): DiscordReply {
    const body = jsonBody(raw, "discord-interaction");
    const parsed = interactionSchema.safeParse(body);
    if (!parsed.success) throw new ValidationError("discord-interaction", issuesFromZod(parsed.error));
    const interaction = parsed.data;
    if (interaction.type === PING) return { type: PONG };
    const said = (content: string, flags = EPHEMERAL) => ({
      type: CHANNEL_MESSAGE,
      data: { content, flags },
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
          : `/${name} ${option("text")}`.trim();
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
    return name === "ask" ? said(`> ${text.slice(0, 1900)}`, 0) : said("Sent to IronClaw.");
  }

  pairingInstruction(code: string): string {
    return `In a direct message with the app, use /pair with the code ${code}`;
  }

  /** Posts into the DM; mentions in an answer ping nobody. */
  async send(address: string, text: string): Promise<boolean> {
    const failure = await this.call("POST", `/channels/${address}/messages`, {
      content: text,
      allowed_mentions: { parse: [] },
    });
    if (failure) this.log.warn({ channel: address, ...failure }, "Discord message not sent");
    return failure === undefined;
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

  private call(method: string, path: string, body: unknown): Promise<PlatformFailure | undefined> {
    return callPlatform({
      url: `${this.options.apiBaseUrl.replace(/\/+$/, "")}${path}`,
      method,
      headers: { "content-type": "application/json", authorization: `Bot ${this.options.token}` },
      body,
      secret: this.options.token,
      options: this.options,
      // A 429 says how long to wait in its body (seconds, fractional) as well as in Retry-After.
      read: ({ ok, status, headers, text }) =>
        ok
          ? { ok: true }
          : {
              ok: false,
              reason: text.slice(0, 200) || `status ${status}`,
              retryAfterSeconds: Number(
                (safeJson(text) as { retry_after?: unknown } | undefined)?.retry_after ??
                  headers.get("retry-after") ??
                  1,
              ),
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
  const publicKey = channelSecret("discord", "public_key", config.public_key, undefined, env);
  const channel = new DiscordChannel({
    bot: config.bot,
    applicationId,
    publicKey,
    token,
    apiBaseUrl: config.api_base_url,
    router: deps.router,
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.fetch ? { fetch: deps.fetch } : {}),
  });
  deps.router.register(channel);
  return channel;
}
