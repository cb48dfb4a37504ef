import { z } from "zod";
import { aNumber, aString, type DiscordBotConfig } from "../../contracts/index.js";
import { createLogger, type Logger } from "../../core/index.js";
import type { DiscordChannel } from "./discord.js";
import { channelSecret } from "./platform-call.js";
import {
  holdSocket,
  type SocketEnd,
  SocketKeeper,
  type SocketKeeperOptions,
  type SocketSession,
} from "./socket-keeper.js";

// The gateway's opcodes (https://discord.com/developers/docs/topics/opcodes-and-status-codes#gateway).
const DISPATCH = 0;
const HEARTBEAT = 1;
const IDENTIFY = 2;
const RESUME = 6;
const RECONNECT = 7;
const INVALID_SESSION = 9;
const HELLO = 10;
const HEARTBEAT_ACK = 11;

/** GUILD_MESSAGES, DIRECT_MESSAGES and MESSAGE_CONTENT (privileged: enabled on the Developer Portal's Bot page). */
export const GATEWAY_INTENTS = (1 << 9) | (1 << 12) | (1 << 15);

/** Close codes after which no connection can work as configured: reconnecting would only loop. */
const CANNOT_WORK = new Map([
  [4004, "Discord refused the bot token"],
  [4010, "Discord refused the shard"],
  [4011, "Discord requires sharding for this bot"],
  [4012, "Discord refused the gateway version"],
  [4013, "Discord refused the intents"],
  [4014, "an intent is not enabled: turn on Message Content Intent on the Developer Portal's Bot page"],
]);
/** Close codes after which the session cannot be resumed: the next connection identifies anew. */
const SESSION_GONE = new Set([4007, 4009]);
/** Our close code for a connection whose session should live on (1000 and 1001 end it). */
const KEEP_SESSION = 4900;

// Every gateway payload: an opcode, its data, and for dispatches their sequence number and name.
const payloadSchema = z.looseObject({
  op: aNumber().int("must be an integer"),
  d: z.unknown().optional(),
  s: aNumber().int("must be an integer").nullable().optional(),
  t: aString().nullable().optional(),
});
const helloSchema = z.looseObject({ heartbeat_interval: aNumber().positive("must be positive") });
const readySchema = z.looseObject({
  session_id: aString(),
  resume_gateway_url: z
    .string()
    .regex(/^wss?:\/\//)
    .optional(),
  user: z.looseObject({ id: aString() }),
});

export interface DiscordGatewayOptions {
  channel: DiscordChannel;
  token: string;
  logger?: Logger;
  /** Backoff tuning and the jitter's source, for tests. */
  keeper?: Pick<SocketKeeperOptions, "initialDelayMs" | "maxDelayMs" | "random">;
}

/** What a resumed connection needs: the session, where to resume it, and the last sequence number seen. */
interface Session {
  id: string;
  resumeUrl: string | undefined;
}

/**
 * A Discord bot's gateway connection, for what its interactions endpoint never sees: DMs and mentions (and the
 * slash commands themselves, for an application that has no interactions URL). HELLO
 * starts the heartbeat (the first after a random part of the interval, as Discord asks), IDENTIFY opens a session
 * with the message intents, and each MESSAGE_CREATE goes to the channel. A heartbeat not acknowledged by the
 * next one means a dead connection: it is closed and the session RESUMEd on a new one, as after a drop or
 * Discord's RECONNECT; an invalid session identifies anew.
 */
export class DiscordGateway {
  private readonly channel: DiscordChannel;
  private readonly token: string;
  private readonly log: Logger;
  private readonly keeper: SocketKeeper;
  private readonly random: () => number;
  private session: Session | undefined;
  private seq: number | null = null;
  private botUserId: string | undefined;

  constructor(options: DiscordGatewayOptions) {
    this.channel = options.channel;
    this.token = options.token;
    this.log = options.logger ?? createLogger("discord");
    this.random = options.keeper?.random ?? Math.random;
    this.keeper = new SocketKeeper({
      ...options.keeper,
      name: `discord:${this.channel.name} gateway`,
      logger: this.log,
      connect: (signal, ready) => this.connect(signal, ready),
    });
  }

  start(): void {
    this.keeper.start();
  }

  /** Closes the connection; resolves once it is closed and no new one will be opened. */
  stop(): Promise<void> {
    return this.keeper.stop();
  }

  private async connect(signal: AbortSignal, ready: () => void): Promise<SocketEnd> {
    let base = this.session?.resumeUrl;
    if (base === undefined) {
      const found = await this.channel.gatewayUrl(signal);
      if (signal.aborted) return { next: "backoff", why: "stopped" };
      if ("failure" in found) {
        const why = `GET /gateway/bot: ${found.failure.reason}`;
        return found.failure.status === 401 ? { next: "stop", why } : { next: "backoff", why };
      }
      base = found.url;
    }
    let heartbeat: NodeJS.Timeout | undefined;
    let hello = false;
    let acked = true;
    const beat = (socket: SocketSession, intervalMs: number) => {
      if (!acked) {
        socket.end({ next: "reconnect", why: "no heartbeat ACK: the connection is dead" }, KEEP_SESSION);
        return;
      }
      acked = false;
      socket.send({ op: HEARTBEAT, d: this.seq });
      heartbeat = setTimeout(() => beat(socket, intervalMs), intervalMs);
    };
    const end = await holdSocket({
      url: `${base.replace(/\/+$/, "")}/?v=10&encoding=json`,
      signal,
      logger: this.log,
      onFrame: (data, socket) => {
        const payload = payloadSchema.safeParse(data);
        if (!payload.success) return;
        const { op, d, s, t } = payload.data;
        if (op === DISPATCH && typeof s === "number") this.seq = s;
        if (op === HELLO) {
          const parsed = helloSchema.safeParse(d);
          if (!parsed.success)
            return socket.end({ next: "backoff", why: "HELLO without heartbeat_interval" });
          hello = true;
          const interval = parsed.data.heartbeat_interval;
          clearTimeout(heartbeat);
          heartbeat = setTimeout(() => beat(socket, interval), interval * this.random());
          socket.send(this.opening());
        } else if (op === HEARTBEAT) {
          socket.send({ op: HEARTBEAT, d: this.seq });
        } else if (op === HEARTBEAT_ACK) {
          acked = true;
        } else if (op === RECONNECT) {
          socket.end({ next: "reconnect", why: "Discord asked for a new connection" }, KEEP_SESSION);
        } else if (op === INVALID_SESSION) {
          // `d` says whether the session may be resumed; if not, Discord asks for a wait of 1-5 s first.
          if (d !== true) this.forgetSession();
          socket.end(
            {
              next: "reconnect",
              why: "Discord invalidated the session",
              afterMs: 1_000 + this.random() * 4_000,
            },
            KEEP_SESSION,
          );
        } else if (op === DISPATCH) {
          this.dispatch(t ?? "", d, ready);
        }
      },
      onClose: (code, reason) => {
        const cannot = CANNOT_WORK.get(code);
        if (cannot) return { next: "stop", why: `${cannot} (${code} ${reason})`.trim() };
        if (SESSION_GONE.has(code)) this.forgetSession();
        return undefined;
      },
    });
    clearTimeout(heartbeat);
    // A resume address that never said HELLO may be gone: the next attempt asks for the gateway again.
    if (!hello && this.session) this.session.resumeUrl = undefined;
    return end;
  }

  /** IDENTIFY for a new session, or RESUME the one a dropped connection was carrying. */
  private opening(): unknown {
    if (this.session && this.seq !== null)
      return { op: RESUME, d: { token: this.token, session_id: this.session.id, seq: this.seq } };
    return {
      op: IDENTIFY,
      d: {
        token: this.token,
        intents: GATEWAY_INTENTS,
        properties: { os: process.platform, browser: "ironclaw", device: "ironclaw" },
      },
    };
  }

  private dispatch(name: string, data: unknown, ready: () => void): void {
    if (name === "READY") {
      const parsed = readySchema.safeParse(data);
      if (!parsed.success) {
        this.log.warn({ bot: this.channel.name }, "READY without a session or user was ignored");
        return;
      }
      this.session = { id: parsed.data.session_id, resumeUrl: parsed.data.resume_gateway_url };
      this.botUserId = parsed.data.user.id;
      ready();
      this.log.info({ bot: this.channel.name }, "Discord gateway connected");
    } else if (name === "RESUMED") {
      ready();
      this.log.info({ bot: this.channel.name }, "Discord gateway session resumed");
    } else if (name === "INTERACTION_CREATE") {
      this.channel.answerInteraction(data).catch((err: unknown) => {
        this.log.warn({ err, bot: this.channel.name }, "a Discord interaction was not taken");
      });
    } else if (name === "MESSAGE_CREATE" && this.botUserId !== undefined) {
      try {
        this.channel.handleGatewayMessage(data, this.botUserId);
      } catch (err) {
        this.log.warn({ err, bot: this.channel.name }, "a Discord message was not taken");
      }
    }
  }

  private forgetSession(): void {
    this.session = undefined;
    this.seq = null;
  }
}

/** The gateway for `[integrations.discord]` with `gateway = true`, or undefined without it. */
export function createDiscordGateway(
  config: DiscordBotConfig,
  channel: DiscordChannel,
  deps: { env?: NodeJS.ProcessEnv; logger?: Logger },
): DiscordGateway | undefined {
  if (!config.gateway) return undefined;
  const env = deps.env ?? process.env;
  return new DiscordGateway({
    channel,
    token: channelSecret("discord", "bot_token", config.bot_token, config.bot_token_env, env),
    ...(deps.logger ? { logger: deps.logger } : {}),
  });
}
