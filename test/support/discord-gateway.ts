import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { type WebSocket, WebSocketServer } from "ws";
import { createArrivals } from "./arrivals.js";

/** The bot token the fake takes, and the id its READY gives the bot. */
export const DISCORD_TOKEN = "discord-bot-token";
export const DISCORD_BOT_ID = "700000000000000099";

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
  /** A dispatch (op 0) with the next sequence number over the newest open connection. */
  dispatch(name: string, data: unknown): void;
  /** Any payload, as Discord would send it (RECONNECT, INVALID_SESSION…), over the newest open connection. */
  send(payload: unknown): void;
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
      res.writeHead(200, { "content-type": "application/json" });
      if (req.method === "GET" && req.url === "/api/v10/gateway/bot")
        return res.end(
          JSON.stringify({
            url: `ws://127.0.0.1:${port}/gateway`,
            shards: 1,
            session_start_limit: { total: 1000, remaining: 999, reset_after: 0, max_concurrency: 1 },
          }),
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
    dispatch: (name, data) => send(newest(), { op: 0, t: name, s: ++seq, d: data }),
    send: (payload) => send(newest(), payload),
    close: (code, reason = "") => newest().close(code, reason),
    ackHeartbeats: true,
  };
  const newest = () => {
    const ws = sockets.at(-1);
    if (!ws) throw new Error("no gateway connection is open");
    return ws;
  };
  const send = (ws: WebSocket, payload: unknown) => ws.send(JSON.stringify(payload));
  wss.on("connection", (ws, req) => {
    paths.push(req.url ?? "");
    const connection = paths.length;
    sockets.push(ws);
    ws.on("message", (data) => {
      const { op, d } = JSON.parse(data.toString()) as { op: number; d: Record<string, unknown> | null };
      received.push({ connection, op, d });
      arrivals.arrived();
      if (op === 1 && gateway.ackHeartbeats) send(ws, { op: 11 });
      if (op === 2) {
        if (d?.token !== DISCORD_TOKEN) return ws.close(4004, "Authentication failed.");
        const session = `session-${sessions.size + 1}`;
        sessions.add(session);
        send(ws, {
          op: 0,
          t: "READY",
          s: ++seq,
          d: {
            v: 10,
            user: { id: DISCORD_BOT_ID, username: "ironclaw", bot: true },
            session_id: session,
            resume_gateway_url: `ws://127.0.0.1:${port}/resume`,
            guilds: [],
            application: { id: "123456789012345678" },
          },
        });
      }
      if (op === 6) {
        if (d?.token === DISCORD_TOKEN && sessions.has(String(d?.session_id)))
          send(ws, { op: 0, t: "RESUMED", s: ++seq, d: null });
        else send(ws, { op: 9, d: false });
      }
    });
    ws.on("close", () => {
      sockets.splice(sockets.indexOf(ws), 1);
      arrivals.arrived();
    });
    send(ws, { op: 10, d: { heartbeat_interval: options.heartbeatIntervalMs ?? 1_000 } });
    arrivals.arrived();
  });
  const posts = () =>
    calls
      .filter((c) => c.method === "POST" && /^\/api\/v10\/channels\/\d+\/messages$/.test(c.path))
      .map((c) => {
        const body = c.body as { content: string; message_reference?: { message_id: string } };
        return {
          channel: c.path.split("/")[4] ?? "",
          content: body.content,
          ...(body.message_reference ? { replyTo: body.message_reference.message_id } : {}),
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
