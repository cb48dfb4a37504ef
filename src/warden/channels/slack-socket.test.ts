import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer } from "ws";
import { createLogger } from "../../core/index.js";
import type { ChannelRouter } from "./channel.js";
import { SlackChannel } from "./slack.js";
import { SlackApi } from "./slack-api.js";
import { SlackSocketMode } from "./slack-socket.js";

const logger = createLogger("slack-socket-test", { level: "silent" });
let server: Server | undefined;

/** A Web API that takes requests and never answers them, as a Slack outage can. */
async function silentApi(arrived: IncomingMessage[]): Promise<string> {
  server = createServer((req) => void arrived.push(req));
  await new Promise<void>((resolve) => server?.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/api`;
}

afterEach(async () => {
  server?.closeAllConnections();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
});

/** A Slack app whose router takes every message and does nothing with it. */
function quietChannel(apiBaseUrl: string): SlackChannel {
  const router = { receive: async () => undefined } as unknown as ChannelRouter;
  return new SlackChannel({
    bot: "team",
    token: "xoxb-unit",
    apiBaseUrl,
    slashCommand: "/ironclaw",
    router,
    logger,
  });
}

describe("Slack's Socket Mode", () => {
  it("stops at once while apps.connections.open hangs, instead of waiting out its timeout and retries", async () => {
    const arrived: IncomingMessage[] = [];
    const baseUrl = await silentApi(arrived);
    const channel = quietChannel(baseUrl);
    const socket = new SlackSocketMode({
      channel,
      api: new SlackApi({ baseUrl, token: "xapp-unit", logger, timeoutMs: 60_000 }),
      logger,
    });
    socket.start();
    while (arrived.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    expect(arrived[0]?.url).toBe("/api/apps.connections.open");
    expect(arrived[0]?.headers.authorization).toBe("Bearer xapp-unit");
    // Within the test's own timeout, far below the call's 60 s.
    await socket.stop();
  });

  it("takes a connection whose pings go unanswered for dead, and opens another", async () => {
    const opened: string[] = [];
    const http = createServer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ ok: true, url: `ws://127.0.0.1:${port()}/link/?ticket=${opened.length}` }));
    });
    // A connection the network lost without a word: it says hello, then nothing, not even a pong.
    server = http;
    const wss = new WebSocketServer({ server: http, autoPong: false });
    wss.on("connection", (ws, req) => {
      opened.push(req.url ?? "");
      ws.send(JSON.stringify({ type: "hello" }));
    });
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    const port = () => (http.address() as AddressInfo).port;
    const baseUrl = `http://127.0.0.1:${port()}/api`;
    const channel = quietChannel(baseUrl);
    const socket = new SlackSocketMode({
      channel,
      api: new SlackApi({ baseUrl, token: "xapp-unit", logger }),
      logger,
      pingIntervalMs: 50,
      keeper: { initialDelayMs: 10 },
    });
    socket.start();
    while (opened.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    await socket.stop();
    for (const ws of wss.clients) ws.terminate();
    wss.close();
    expect(opened).toEqual(["/link/?ticket=0", "/link/?ticket=1"]);
  });
});
