import { createHmac } from "node:crypto";
import { createServer, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { AppMentionEvent, GenericMessageEvent } from "@slack/types";
import { type WebSocket, WebSocketServer } from "ws";
import { ironclawdConfigSchema } from "../../src/contracts/index.js";
import { createArrivals } from "./arrivals.js";

/** One Web API call the fake received: the method, its bearer token and its JSON body. */
export interface SlackApiCall {
  method: string;
  token: string;
  body: Record<string, unknown>;
  /** Milliseconds since the epoch, for tests that check how long a retry waited. */
  at: number;
}

/** A scripted failure for the next call: an HTTP status, Slack's `error`, and Retry-After for a 429. */
export interface SlackApiFailure {
  status: number;
  error: string;
  retryAfterSeconds?: number;
}

export interface SlackServer {
  /** The Web API base URL, `http://127.0.0.1:<port>/api` (the client appends `/<method>`). */
  readonly url: string;
  readonly calls: SlackApiCall[];
  /** The chat.postMessage calls, accepted or not. */
  posts(): Array<{ channel: unknown; text: unknown; thread_ts?: unknown }>;
  failNext(...failures: SlackApiFailure[]): void;
  /** Resolves once `count` chat.postMessage calls have arrived (rejects after `timeoutMs`). */
  waitForPosts(count: number, timeoutMs?: number): Promise<void>;
  /** Socket Mode: the connections apps.connections.open hands out, as Slack's own would behave. */
  readonly socket: SlackSocketServer;
  close(): Promise<void>;
}

/** What an app sent back over a Socket Mode connection: an acknowledgement, with a slash command's answer. */
export interface SlackSocketAck {
  envelope_id: string;
  payload?: { text?: string; response_type?: string };
}

export interface SlackSocketServer {
  /** Connections opened so far (each greeted with `hello`). */
  connections(): number;
  /** Connections open now. */
  openConnections(): number;
  waitForConnections(count: number, timeoutMs?: number): Promise<void>;
  /** Resolves once no connection is open (the app closed its own). */
  waitForNoConnections(timeoutMs?: number): Promise<void>;
  /**
   * Sends an envelope over the newest open connection, as Slack does (a fresh envelope_id each delivery, and
   * retry_attempt counting Slack's redeliveries of an events_api one); returns its envelope_id.
   */
  send(type: "events_api", payload: SlackEventRequest, retryAttempt?: number): string;
  send(type: "slash_commands", payload: SlashCommand): string;
  readonly acks: SlackSocketAck[];
  /** Resolves with the acknowledgement of `envelopeId` once it has come. */
  waitForAck(envelopeId: string, timeoutMs?: number): Promise<SlackSocketAck>;
  /** Slack's `disconnect`: the newest connection is about to be closed, and the app should open a new one. */
  disconnect(reason?: SlackSocketDisconnect["reason"]): void;
  /** Cuts the newest connection without a word, as a network drop would. */
  drop(): void;
}

/** The app-level token the fake's apps.connections.open takes. */
export const SLACK_APP_TOKEN = "xapp-1-test-token";

/** Starts a fake Slack Web API on 127.0.0.1 with a free port; chat.postMessage answers `ok: true`. */
export async function startSlackServer(): Promise<SlackServer> {
  const calls: SlackApiCall[] = [];
  const failures: SlackApiFailure[] = [];
  const arrivals = createArrivals();
  const sockets: WebSocket[] = [];
  const acks: SlackSocketAck[] = [];
  let opened = 0;
  let envelopes = 0;
  const server = createServer((req, res) => {
    const parts: Buffer[] = [];
    req.on("data", (d: Buffer) => parts.push(d));
    req.on("end", () => {
      const method = /^\/api\/([\w.]+)$/.exec((req.url ?? "").split("?")[0] ?? "")?.[1];
      if (!method) return answer(res, 404, { ok: false, error: "unknown_method" });
      const token = /^Bearer (.+)$/.exec(req.headers.authorization ?? "")?.[1] ?? "";
      let body: Record<string, unknown> = {};
      try {
        body = JSON.parse(Buffer.concat(parts).toString("utf8")) as Record<string, unknown>;
      } catch {
        return answer(res, 200, { ok: false, error: "invalid_json" });
      }
      calls.push({ method, token, body, at: Date.now() });
      arrivals.arrived();
      if (method === "apps.connections.open")
        return token === SLACK_APP_TOKEN
          ? answer(res, 200, { ok: true, url: `ws://127.0.0.1:${port}/link/?ticket=${calls.length}` })
          : answer(res, 200, { ok: false, error: "invalid_auth" });
      const failure = failures.shift();
      if (failure)
        return answer(
          res,
          failure.status,
          { ok: false, error: failure.error },
          failure.retryAfterSeconds === undefined ? {} : { "retry-after": String(failure.retryAfterSeconds) },
        );
      if (token !== "xoxb-test-token") return answer(res, 200, { ok: false, error: "invalid_auth" });
      if (method === "chat.postMessage") {
        const refused = postMessageRefusal(body);
        if (refused) return answer(res, 200, { ok: false, error: refused });
      }
      answer(res, 200, { ok: true, channel: body.channel, ts: `${Date.now() / 1000}` });
    });
  });
  const posts = () =>
    calls
      .filter((c) => c.method === "chat.postMessage")
      .map((c) => ({
        channel: c.body.channel,
        text: c.body.text,
        ...(c.body.thread_ts === undefined ? {} : { thread_ts: c.body.thread_ts }),
      }));
  const wss = new WebSocketServer({ server, path: "/link/" });
  wss.on("connection", (ws) => {
    opened++;
    sockets.push(ws);
    ws.on("message", (data) => {
      acks.push(JSON.parse(data.toString()) as SlackSocketAck);
      arrivals.arrived();
    });
    ws.on("close", () => {
      sockets.splice(sockets.indexOf(ws), 1);
      arrivals.arrived();
    });
    ws.send(
      JSON.stringify({
        type: "hello",
        num_connections: sockets.length,
        debug_info: { host: "applink-test" },
        connection_info: { app_id: "A1" },
      } satisfies SlackSocketHello),
    );
    arrivals.arrived();
  });
  const newest = () => {
    const ws = sockets.at(-1);
    if (!ws) throw new Error("no Socket Mode connection is open");
    return ws;
  };
  const deliver = (envelope: SlackSocketEnvelope) => {
    newest().send(JSON.stringify(envelope));
    return envelope.envelope_id;
  };
  const socket: SlackSocketServer = {
    connections: () => opened,
    openConnections: () => sockets.length,
    waitForConnections: (count, timeoutMs) =>
      arrivals.waitFor(() => opened, count, "Socket Mode connections", timeoutMs),
    waitForNoConnections: (timeoutMs) =>
      arrivals.waitFor(() => (sockets.length === 0 ? 1 : 0), 1, "all connections closed", timeoutMs),
    send: (
      type: "events_api" | "slash_commands",
      payload: SlackEventRequest | SlashCommand,
      retryAttempt?: number,
    ) => {
      const envelope_id = `envelope-${++envelopes}`;
      return type === "events_api"
        ? deliver({
            envelope_id,
            type,
            payload: payload as SlackEventRequest,
            accepts_response_payload: false,
            retry_attempt: retryAttempt ?? 0,
            retry_reason: retryAttempt ? "timeout" : "",
          })
        : deliver({ envelope_id, type, payload: payload as SlashCommand, accepts_response_payload: true });
    },
    acks,
    waitForAck: async (envelopeId, timeoutMs) => {
      const found = () => acks.filter((a) => a.envelope_id === envelopeId).length;
      await arrivals.waitFor(found, 1, `the acknowledgement of ${envelopeId}`, timeoutMs);
      return acks.find((a) => a.envelope_id === envelopeId) as SlackSocketAck;
    },
    disconnect: (reason = "refresh_requested") =>
      newest().send(
        JSON.stringify({
          type: "disconnect",
          reason,
          debug_info: { host: "applink-test" },
        } satisfies SlackSocketDisconnect),
      ),
    drop: () => newest().terminate(),
  };
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/api`,
    calls,
    posts,
    failNext: (...f) => {
      failures.push(...f);
    },
    waitForPosts: (count, timeoutMs) =>
      arrivals.waitFor(() => posts().length, count, "chat.postMessage calls", timeoutMs),
    socket,
    close: async () => {
      for (const ws of [...sockets]) ws.terminate();
      wss.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function answer(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
}

export const SLACK_SIGNING_SECRET = "slack-signing-secret-for-tests";

/** The warden's `[integrations]` with a Slack app named "team" over Socket Mode: an app-level token, no secret. */
export function slackSocketIntegration(slack: SlackServer) {
  const { signing_secret: _signed, ...rest } = slackIntegration(slack).slack;
  return { ...slackIntegration(slack), slack: { ...rest, app_token: SLACK_APP_TOKEN } };
}

/** The warden's `[integrations]` with a Slack app named "team" whose Web API is this fake; the rest default. */
export function slackIntegration(slack: SlackServer) {
  return {
    ...ironclawdConfigSchema.parse({}).integrations,
    slack: {
      enabled: true,
      bot_token: "xoxb-test-token",
      signing_secret: SLACK_SIGNING_SECRET,
      api_base_url: slack.url,
      bot: "team",
      slash_command: "/ironclaw",
    },
  };
}

/** Headers Slack sends with a body: its timestamp and v0 signature (of `at` seconds, now by default). */
export function slackSignature(
  body: string,
  secret = SLACK_SIGNING_SECRET,
  at = Math.floor(Date.now() / 1000),
): Record<string, string> {
  const signature = createHmac("sha256", secret).update(`v0:${at}:${body}`).digest("hex");
  return { "x-slack-request-timestamp": String(at), "x-slack-signature": `v0=${signature}` };
}

/**
 * Why Slack's chat.postMessage would refuse these arguments (its `error`), or undefined: the fields
 * ChatPostMessageArguments requires (a channel, and text when there are no blocks or attachments) and the types of
 * those the warden sends.
 */
function postMessageRefusal(body: Record<string, unknown>): string | undefined {
  if (typeof body.channel !== "string" || body.channel === "") return "channel_not_found";
  const content = body.text ?? body.blocks ?? body.attachments ?? body.markdown_text;
  if (content === undefined || body.text === "") return "no_text";
  if (body.text !== undefined && typeof body.text !== "string") return "invalid_arguments";
  if (body.thread_ts !== undefined && typeof body.thread_ts !== "string") return "invalid_arguments";
  if (body.mrkdwn !== undefined && typeof body.mrkdwn !== "boolean") return "invalid_arguments";
  return undefined;
}

// What the stand-in Slack sends, its events typed with Slack's SDK types (@slack/types) so that tsc refuses an
// event Slack would not send. The envelope around an event, the slash command's form, the url_verification request
// and Socket Mode's frames have no type in @slack/types; they are written from Slack's reference, as cited.

/** The events an app of the warden's kind subscribes to: a direct message, and a mention in a channel. */
export type SlackAppEvent = GenericMessageEvent | AppMentionEvent;

/** The Events API's envelope around one event (https://api.slack.com/apis/events-api#callback-field). */
export interface EnvelopedEvent<Event> {
  token: string;
  team_id: string;
  enterprise_id?: string;
  context_team_id?: string;
  context_enterprise_id?: string;
  api_app_id: string;
  event: Event;
  type: "event_callback";
  event_id: string;
  event_time: number;
  is_ext_shared_channel?: boolean;
  authorizations?: Array<{
    enterprise_id: string | null;
    team_id: string | null;
    user_id: string;
    is_bot: boolean;
    is_enterprise_install?: boolean;
  }>;
}

/** A slash command's fields (https://api.slack.com/interactivity/slash-commands#app_command_handling). */
export interface SlashCommand {
  token: string;
  command: string;
  text: string;
  response_url: string;
  trigger_id: string;
  user_id: string;
  user_name: string;
  team_id: string;
  team_domain: string;
  channel_id: string;
  channel_name: string;
  api_app_id: string;
  enterprise_id?: string;
  enterprise_name?: string;
  is_enterprise_install?: string;
}

/** An Events API request's body: Slack's envelope around one event. */
export type SlackEventRequest = EnvelopedEvent<SlackAppEvent>;

/** Slack's URL check (https://api.slack.com/events/url_verification). */
export interface SlackUrlVerification {
  token: string;
  challenge: string;
  type: "url_verification";
}

/** Socket Mode's frames (https://api.slack.com/apis/socket-mode#connect, #events): hello, disconnect, an envelope. */
export interface SlackSocketHello {
  type: "hello";
  num_connections: number;
  debug_info: { host: string };
  connection_info: { app_id: string };
}
export interface SlackSocketDisconnect {
  type: "disconnect";
  reason: "warning" | "refresh_requested" | "link_disabled";
  debug_info: { host: string };
}
export type SlackSocketEnvelope =
  | {
      envelope_id: string;
      type: "events_api";
      payload: SlackEventRequest;
      accepts_response_payload: false;
      retry_attempt: number;
      retry_reason: string;
    }
  | { envelope_id: string; type: "slash_commands"; payload: SlashCommand; accepts_response_payload: true };

export const SLACK_TEAM = "T1";
export const SLACK_APP_ID = "A1";

export function slackUrlVerification(challenge: string): SlackUrlVerification {
  return { token: "Jhj5dZrVaK7ZwHHjRyZWjbDl", challenge, type: "url_verification" };
}

/** The Events API request carrying `event`, as Slack sends it (`eventId` is what a redelivery repeats). */
export function slackEventRequest(event: SlackAppEvent, eventId: string): SlackEventRequest {
  return {
    token: "XXYYZZ",
    team_id: SLACK_TEAM,
    api_app_id: SLACK_APP_ID,
    event,
    type: "event_callback",
    event_id: eventId,
    event_time: Math.floor(Number(event.event_ts)),
    authorizations: [{ enterprise_id: null, team_id: SLACK_TEAM, user_id: "U0APP", is_bot: true }],
  };
}

/** A person's message in the app's direct messages (message.im). */
export function slackDirectMessage(
  user: string,
  channel: string,
  text: string,
  ts: string,
): GenericMessageEvent {
  return {
    type: "message",
    subtype: undefined,
    channel,
    user,
    text,
    ts,
    event_ts: ts,
    channel_type: "im",
    team: SLACK_TEAM,
    client_msg_id: `msg-${ts}`,
  };
}

/** A mention of the app in a channel (app_mention); `text` starts with the mention, as Slack writes it. */
export function slackMention(user: string, channel: string, text: string, ts: string): AppMentionEvent {
  return { type: "app_mention", user, text, ts, channel, event_ts: ts, team: SLACK_TEAM };
}

/** A slash command's fields, as Slack posts them (a form) or carries them in a Socket Mode envelope. */
export function slackSlashCommand(
  command: string,
  text: string,
  user: { id: string; name: string },
  channel: string,
): SlashCommand {
  return {
    token: "gIkuvaNzQIHg97ATvDxqgjtO",
    command,
    text,
    response_url: `https://hooks.slack.invalid/commands/${SLACK_TEAM}/1/x`,
    trigger_id: "13345224609.738474920.8088930838d88f008e0",
    user_id: user.id,
    user_name: user.name,
    team_id: SLACK_TEAM,
    team_domain: "example",
    channel_id: channel,
    channel_name: channel.startsWith("D") ? "directmessage" : "general",
    api_app_id: SLACK_APP_ID,
  };
}

/** A slash command as the form body Slack posts. */
export function slackSlashForm(command: SlashCommand): string {
  return new URLSearchParams(command as unknown as Record<string, string>).toString();
}
