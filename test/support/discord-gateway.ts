import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import {
  type APIChatInputApplicationCommandInteraction,
  type APIInteractionResponse,
  type APIMessage,
  type APIPingInteraction,
  type APIUser,
  ApplicationCommandOptionType,
  ApplicationCommandType,
  ApplicationFlags,
  ChannelType,
  type GatewayDispatchEvents,
  type GatewayDispatchPayload,
  type GatewayHello,
  GatewayOpcodes,
  type GatewayReadyDispatch,
  type GatewayReceivePayload,
  type GatewayResumedDispatch,
  GuildMemberFlags,
  InteractionContextType,
  InteractionResponseType,
  InteractionType,
  Locale,
  MessageType,
  type RESTGetAPIGatewayBotResult,
  type RESTPostAPIChannelMessageJSONBody,
  type RESTPutAPIApplicationCommandsJSONBody,
} from "discord-api-types/v10";
import { type WebSocket, WebSocketServer } from "ws";
import { createArrivals } from "./arrivals.js";

/** The bot token the fake takes, and the id its READY gives the bot. */
export const DISCORD_TOKEN = "discord-bot-token";
export const DISCORD_BOT_ID = "700000000000000099";
export const DISCORD_APPLICATION_ID = "123456789012345678";

/** One HTTP API call the fake received. */
export interface DiscordCall {
  method: string;
  path: string;
  auth: string;
  body: unknown;
}

/** A payload the bot sent over the gateway, with the connection (1, 2, …) it came on. */
export interface GatewayReceived {
  connection: number;
  op: number;
  d: unknown;
}

export interface DiscordGatewayFake {
  /** Connections opened so far, each greeted with HELLO. */
  connections(): number;
  openConnections(): number;
  /** The path and query each connection asked for, in order. */
  readonly paths: string[];
  readonly received: GatewayReceived[];
  waitForConnections(count: number, timeoutMs?: number): Promise<void>;
  waitForNoConnections(timeoutMs?: number): Promise<void>;
  /** Resolves once `count` received payloads match `which`. */
  waitForReceived(which: (r: GatewayReceived) => boolean, count?: number, timeoutMs?: number): Promise<void>;
  /** A dispatch (op 0) with the next sequence number over the newest open connection; `data` is Discord's for `name`. */
  dispatch<E extends GatewayDispatchEvents>(
    name: E,
    data: Extract<GatewayDispatchPayload, { t: E }>["d"],
  ): void;
  /** Any payload, as Discord would send it (RECONNECT, INVALID_SESSION…), over the newest open connection. */
  send(payload: GatewayReceivePayload): void;
  /** Closes the newest connection from Discord's side, with a close code. */
  close(code: number, reason?: string): void;
  /** Whether heartbeats are acknowledged (HEARTBEAT_ACK); off, the connection looks dead to the bot. */
  ackHeartbeats: boolean;
}

export interface DiscordServer {
  /** The HTTP API base, `http://127.0.0.1:<port>/api/v10`. */
  readonly url: string;
  readonly calls: DiscordCall[];
  /** The messages posted to channels: where, what, and the message replied to. */
  posts(): Array<{ channel: string; content: string; replyTo?: string }>;
  waitForPosts(count: number, timeoutMs?: number): Promise<void>;
  readonly gateway: DiscordGatewayFake;
  close(): Promise<void>;
}

/**
 * A stand-in for Discord on 127.0.0.1: the HTTP API (GET /gateway/bot, messages, command registration, each
 * answered 200) and the gateway, as Discord's behaves: HELLO on connect, READY for an IDENTIFY with the right
 * token (4004 otherwise), RESUMED for a RESUME of a session it gave (INVALID_SESSION otherwise), HEARTBEAT_ACK
 * for each heartbeat.
 */
export async function startDiscordServer(
  options: { heartbeatIntervalMs?: number } = {},
): Promise<DiscordServer> {
  const calls: DiscordCall[] = [];
  const arrivals = createArrivals();
  const sockets: WebSocket[] = [];
  const paths: string[] = [];
  const received: GatewayReceived[] = [];
  const sessions = new Set<string>();
  let seq = 0;
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (d: Buffer) => parts.push(d));
    req.on("end", () => {
      const text = Buffer.concat(parts).toString("utf8");
      calls.push({
        method: req.method ?? "",
        path: req.url ?? "",
        auth: req.headers.authorization ?? "",
        body: text === "" ? undefined : JSON.parse(text),
      });
      arrivals.arrived();
      const refused = discordRefusal(req.method ?? "", req.url ?? "", calls.at(-1)?.body);
      if (refused) {
        res.writeHead(400, { "content-type": "application/json" });
        return res.end(JSON.stringify(refused));
      }
      res.writeHead(200, { "content-type": "application/json" });
      if (req.method === "GET" && req.url === "/api/v10/gateway/bot")
        return res.end(
          JSON.stringify({
            url: `ws://127.0.0.1:${port}/gateway`,
            shards: 1,
            session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 },
          } satisfies RESTGetAPIGatewayBotResult),
        );
      res.end("{}");
    });
  });
  const wss = new WebSocketServer({ server });
  const gateway: DiscordGatewayFake = {
    connections: () => paths.length,
    openConnections: () => sockets.length,
    paths,
    received,
    waitForConnections: (count, timeoutMs) =>
      arrivals.waitFor(() => paths.length, count, "gateway connections", timeoutMs),
    waitForNoConnections: (timeoutMs) =>
      arrivals.waitFor(() => (sockets.length === 0 ? 1 : 0), 1, "all connections closed", timeoutMs),
    waitForReceived: (which, count = 1, timeoutMs = 10_000) =>
      arrivals.waitFor(() => received.filter(which).length, count, "gateway payloads", timeoutMs),
    dispatch: (name, data) =>
      send(newest(), { op: GatewayOpcodes.Dispatch, t: name, s: ++seq, d: data } as GatewayDispatchPayload),
    send: (payload) => send(newest(), payload),
    close: (code, reason = "") => newest().close(code, reason),
    ackHeartbeats: true,
  };
  const newest = () => {
    const ws = sockets.at(-1);
    if (!ws) throw new Error("no gateway connection is open");
    return ws;
  };
  const send = (ws: WebSocket, payload: GatewayReceivePayload) => ws.send(JSON.stringify(payload));
  wss.on("connection", (ws, req) => {
    paths.push(req.url ?? "");
    const connection = paths.length;
    sockets.push(ws);
    ws.on("message", (data) => {
      const { op, d } = JSON.parse(data.toString()) as { op: number; d: Record<string, unknown> | null };
      received.push({ connection, op, d });
      arrivals.arrived();
      if (op === 1 && gateway.ackHeartbeats)
        send(ws, { op: GatewayOpcodes.HeartbeatAck, d: undefined, s: null, t: null });
      if (op === 2) {
        if (d?.token !== DISCORD_TOKEN) return ws.close(4004, "Authentication failed.");
        const session = `session-${sessions.size + 1}`;
        sessions.add(session);
        send(ws, {
          op: GatewayOpcodes.Dispatch,
          t: "READY" as GatewayReadyDispatch["t"],
          s: ++seq,
          d: {
            v: 10,
            user: discordUser(DISCORD_BOT_ID, "ironclaw", { bot: true }),
            session_id: session,
            resume_gateway_url: `ws://127.0.0.1:${port}/resume`,
            guilds: [],
            application: {
              id: DISCORD_APPLICATION_ID,
              flags: ApplicationFlags.GatewayMessageContent,
              flags_new: String(ApplicationFlags.GatewayMessageContent),
            },
          },
        } satisfies GatewayReadyDispatch);
      }
      if (op === 6) {
        if (d?.token === DISCORD_TOKEN && sessions.has(String(d?.session_id)))
          send(ws, {
            op: GatewayOpcodes.Dispatch,
            t: "RESUMED" as GatewayResumedDispatch["t"],
            s: ++seq,
            d: undefined,
          } satisfies GatewayResumedDispatch);
        else send(ws, { op: GatewayOpcodes.InvalidSession, d: false, s: null, t: null });
      }
    });
    ws.on("close", () => {
      sockets.splice(sockets.indexOf(ws), 1);
      arrivals.arrived();
    });
    send(ws, {
      op: GatewayOpcodes.Hello,
      d: { heartbeat_interval: options.heartbeatIntervalMs ?? 1_000 },
      s: null,
      t: null,
    } satisfies GatewayHello);
    arrivals.arrived();
  });
  const posts = () =>
    calls
      .filter((c) => c.method === "POST" && /^\/api\/v10\/channels\/\d+\/messages$/.test(c.path))
      .map((c) => {
        const body = c.body as RESTPostAPIChannelMessageJSONBody & { content: string };
        return {
          channel: c.path.split("/")[4] ?? "",
          content: body.content,
          ...(body.message_reference?.message_id ? { replyTo: body.message_reference.message_id } : {}),
        };
      });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api/v10`,
    calls,
    posts,
    waitForPosts: (count, timeoutMs) => arrivals.waitFor(() => posts().length, count, "posts", timeoutMs),
    gateway,
    close: async () => {
      for (const ws of [...sockets]) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

// What the stand-in Discord sends, typed with discord-api-types (Discord's API typings), so that tsc refuses a
// payload Discord would not send; and what it checks of what the bot sends, as Discord's API would.

/** A user object as Discord gives it. */
export function discordUser(id: string, username: string, extra: Partial<APIUser> = {}): APIUser {
  return { id, username, discriminator: "0", global_name: null, avatar: null, ...extra };
}

/** A message as MESSAGE_CREATE carries it: in a DM unless `guildId` names a server. */
export function discordMessage(fields: {
  id: string;
  channelId: string;
  author: APIUser;
  content: string;
  guildId?: string;
  mentions?: APIUser[];
  type?: MessageType.Default | MessageType.Reply;
}): Extract<GatewayDispatchPayload, { t: GatewayDispatchEvents.MessageCreate }>["d"] {
  const message: APIMessage = {
    id: fields.id,
    channel_id: fields.channelId,
    author: fields.author,
    content: fields.content,
    timestamp: "2026-01-01T00:00:00.000000+00:00",
    edited_timestamp: null,
    tts: false,
    mention_everyone: false,
    mentions: fields.mentions ?? [],
    mention_roles: [],
    attachments: [],
    embeds: [],
    pinned: false,
    type: fields.type ?? MessageType.Default,
  };
  return fields.guildId === undefined
    ? message
    : {
        ...message,
        guild_id: fields.guildId,
        mentions: message.mentions.map((m) => ({ ...m, member: undefined })),
      };
}

/** A slash command's interaction (a chat-input command), in a DM unless `guildId` names a server. */
export function discordCommand(fields: {
  id: string;
  token: string;
  name: string;
  options?: Record<string, string>;
  channelId: string;
  user: APIUser;
  guildId?: string;
}): APIChatInputApplicationCommandInteraction {
  const data = {
    id: "110000000000000001",
    name: fields.name,
    type: ApplicationCommandType.ChatInput as const,
    options: Object.entries(fields.options ?? {}).map(([name, value]) => ({
      name,
      type: ApplicationCommandOptionType.String as const,
      value,
    })),
  };
  const base = {
    id: fields.id,
    application_id: DISCORD_APPLICATION_ID,
    type: InteractionType.ApplicationCommand as const,
    data,
    token: fields.token,
    version: 1 as const,
    app_permissions: "0",
    locale: Locale.EnglishUS,
    entitlements: [],
    authorizing_integration_owners: { "1": fields.user.id },
    attachment_size_limit: 10_485_760,
    channel_id: fields.channelId,
  };
  if (fields.guildId === undefined)
    return {
      ...base,
      channel: { id: fields.channelId, type: ChannelType.DM },
      context: InteractionContextType.BotDM,
      user: fields.user,
    };
  return {
    ...base,
    channel: { id: fields.channelId, type: ChannelType.GuildText },
    context: InteractionContextType.Guild,
    guild_id: fields.guildId,
    guild: { id: fields.guildId, locale: Locale.EnglishUS, features: [] },
    guild_locale: Locale.EnglishUS,
    member: {
      user: fields.user,
      roles: [],
      joined_at: "2026-01-01T00:00:00.000000+00:00",
      deaf: false,
      mute: false,
      flags: GuildMemberFlags.CompletedOnboarding,
      permissions: "0",
    },
  };
}

/** Discord's PING to an interactions URL (sent when the URL is saved, to check it). */
export function discordPing(): APIPingInteraction {
  return {
    id: "100000000000000000",
    application_id: DISCORD_APPLICATION_ID,
    type: InteractionType.Ping,
    token: "ping-token",
    version: 1,
    app_permissions: "0",
    entitlements: [],
    authorizing_integration_owners: {},
    attachment_size_limit: 10_485_760,
  };
}

/** Discord's 400 for a body its API refuses (its error codes: https://discord.com/developers/docs/topics/opcodes-and-status-codes#json). */
type DiscordError = { code: number; message: string };

/**
 * What Discord's API would refuse of the bot's calls, as the fields of discord-api-types' bodies and Discord's
 * documented limits say: a message needs content (at most 2,000 characters) and its reply a message id; an
 * interaction's answer a known type; a command a lower-case name of at most 32 and a description of at most 100.
 */
function discordRefusal(method: string, path: string, body: unknown): DiscordError | undefined {
  const invalid = (why: string) => ({ code: 50035, message: `Invalid Form Body: ${why}` });
  if (method === "POST" && /^\/api\/v10\/channels\/\d+\/messages$/.test(path)) {
    const message = (body ?? {}) as RESTPostAPIChannelMessageJSONBody;
    if (typeof message.content !== "string" || message.content.trim() === "")
      return { code: 50006, message: "Cannot send an empty message" };
    if (message.content.length > 2000) return invalid("content: Must be 2000 or fewer in length.");
    if (message.message_reference !== undefined && typeof message.message_reference.message_id !== "string")
      return invalid("message_reference.message_id: This field is required");
  }
  if (method === "POST" && /^\/api\/v10\/interactions\/\d+\/[^/]+\/callback$/.test(path)) {
    const answer = (body ?? {}) as APIInteractionResponse;
    if (!Object.values(InteractionResponseType).includes(answer.type))
      return invalid("type: Value is not a valid enum value");
    const content =
      "data" in answer ? (answer.data as { content?: unknown } | undefined)?.content : undefined;
    if (typeof content === "string" && content.length > 2000)
      return invalid("data.content: Must be 2000 or fewer in length.");
  }
  if (method === "PUT" && /^\/api\/v10\/applications\/\d+\/commands$/.test(path)) {
    const commands = (Array.isArray(body) ? body : []) as RESTPutAPIApplicationCommandsJSONBody;
    for (const [i, command] of commands.entries()) {
      if (!/^[-_\p{Ll}\p{N}]{1,32}$/u.test(command.name))
        return invalid(`${i}.name: not a valid command name`);
      const description = "description" in command ? command.description : "";
      if (typeof description !== "string" || description.length < 1 || description.length > 100)
        return invalid(`${i}.description: Must be between 1 and 100 in length.`);
    }
  }
  return undefined;
}

/** An interaction's answer as the tests expect it, checked against Discord's type for one. */
export const interactionResponse = (response: APIInteractionResponse) => response;
/** A command registration as the tests expect it, checked against Discord's type for the bulk overwrite. */
export const commandRegistration = (commands: RESTPutAPIApplicationCommandsJSONBody) => commands;
