import { createHmac } from "node:crypto";
import type { ChatPostMessageArguments } from "@slack/web-api";
import { describe, expect, it } from "vitest";
import { slackBotSchema } from "../../contracts/index.js";
import { createLogger } from "../../core/index.js";
import type { ChannelRouter, InboundMessage } from "./channel.js";
import { SlackChannel } from "./slack.js";
import { createSlackSocketMode } from "./slack-socket.js";

const SECRET = "unit-secret";
const NOW = 1_800_000_000;

/** A Slack app whose router records what it was handed and whose Web API records what it was asked. */
function app(signing: { secret: string; now: number } = { secret: SECRET, now: NOW }) {
  const received: InboundMessage[] = [];
  const requests: Array<{ url: string; body: Record<string, unknown>; auth: string }> = [];
  const router = { receive: async (m: InboundMessage) => void received.push(m) } as unknown as ChannelRouter;
  const channel = new SlackChannel({
    bot: "team",
    token: "xoxb-unit",
    signingSecret: signing.secret,
    apiBaseUrl: "http://slack.invalid/api",
    slashCommand: "/ironclaw",
    router,
    logger: createLogger("slack-test", { level: "silent" }),
    now: () => signing.now,
    api: {
      fetch: async (url, init) => {
        const headers = new Headers(init?.headers);
        requests.push({
          url: String(url),
          body: JSON.parse(String(init?.body)) as Record<string, unknown>,
          auth: headers.get("authorization") ?? "",
        });
        return new Response(JSON.stringify({ ok: true }), { status: 200 });
      },
    },
  });
  return { channel, received, requests };
}

const sign = (body: string, at = NOW) =>
  `v0=${createHmac("sha256", SECRET).update(`v0:${at}:${body}`).digest("hex")}`;
const envelope = (event: Record<string, unknown>, id = "Ev1") =>
  Buffer.from(JSON.stringify({ type: "event_callback", event_id: id, event }));

// The worked example of Slack's "Verifying requests from Slack"
// (https://api.slack.com/authentication/verifying-requests-from-slack): its signing secret, the slash command's
// form it signs, X-Slack-Request-Timestamp and the X-Slack-Signature Slack sends for them.
const SLACK_EXAMPLE = {
  secret: "8f742231b10e8888abcd99yyyzzz85a5",
  timestamp: "1531420618",
  body: "token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c",
  signature: "v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503",
};

describe("a Slack app's requests", () => {
  it("take the request of Slack's own documented example, and nothing changed from it", () => {
    const { secret, timestamp, body, signature } = SLACK_EXAMPLE;
    // The clock at the example's moment: the vector checks the signature, the 5-minute window is tested below.
    const { channel } = app({ secret, now: Number(timestamp) });
    expect(channel.refusal(timestamp, signature, Buffer.from(body))).toBeUndefined();
    expect(channel.refusal(timestamp, signature, Buffer.from(body.replace("text=", "text=x")))).toMatch(
      /does not match/,
    );
    expect(channel.refusal("1531420619", signature, Buffer.from(body))).toMatch(/does not match/);
    expect(channel.refusal(timestamp, signature.replace("v0=", "v1="), Buffer.from(body))).toMatch(
      /does not match/,
    );
    expect(
      app({ secret: `${secret}x`, now: Number(timestamp) }).channel.refusal(
        timestamp,
        signature,
        Buffer.from(body),
      ),
    ).toMatch(/does not match/);
    // Ten minutes after the example, the same request is stale whatever its signature.
    expect(
      app({ secret, now: Number(timestamp) + 600 }).channel.refusal(timestamp, signature, Buffer.from(body)),
    ).toMatch(/5 minutes/);
  });

  it("are Slack's only with a v0 signature over the exact bytes, made within five minutes either way", () => {
    const { channel } = app();
    const body = Buffer.from('{"type":"event_callback"}');
    expect(channel.refusal(String(NOW), sign(body.toString()), body)).toBeUndefined();
    expect(channel.refusal(String(NOW - 299), sign(body.toString(), NOW - 299), body)).toBeUndefined();
    expect(channel.refusal(String(NOW - 301), sign(body.toString(), NOW - 301), body)).toMatch(/5 minutes/);
    expect(channel.refusal(String(NOW + 301), sign(body.toString(), NOW + 301), body)).toMatch(/5 minutes/);
    expect(channel.refusal("12.5", sign(body.toString()), body)).toMatch(/not a number/);
    expect(channel.refusal(String(NOW), "v0=short", body)).toMatch(/does not match/);
    expect(channel.refusal(String(NOW), sign(body.toString()), Buffer.from(`${body} `))).toMatch(
      /does not match/,
    );
    expect(channel.refusal(undefined, sign(body.toString()), body)).toMatch(/missing/);
  });

  it("are turns only when a person wrote to the app: its own posts, edits and plain channel chatter are not", () => {
    const { channel, received } = app();
    const base = { type: "message", channel: "D1", channel_type: "im", user: "U1", ts: "1.1", text: "hi" };
    expect(channel.handle("application/json", envelope({ ...base, bot_id: "B1" }, "E1"))).toEqual({
      kind: "ignored",
    });
    expect(
      channel.handle("application/json", envelope({ ...base, subtype: "message_changed" }, "E2")),
    ).toEqual({
      kind: "ignored",
    });
    expect(
      channel.handle("application/json", envelope({ ...base, channel: "C1", channel_type: "channel" }, "E3")),
    ).toEqual({ kind: "ignored" });
    expect(channel.handle("application/json", envelope({ type: "reaction_added" }, "E4"))).toEqual({
      kind: "ignored",
    });
    expect(channel.handle("application/json", envelope(base, "E5"))).toEqual({ kind: "accepted" });
    expect(received.map((m) => [m.address, m.senderId, m.text, m.pairedOnly])).toEqual([
      ["D1", "U1", "hi", undefined],
    ]);
  });

  it("post answers as plain text, into the mention's thread, with a button's command spelled out", async () => {
    const { channel, requests } = app();
    await channel.send("C1/1700000000.000100", "done", {
      buttons: [{ text: "Acknowledge", data: "ack:esc_1" }],
    });
    await channel.send("D1", "<!channel> *not bold*");
    expect(requests).toEqual([
      {
        url: "http://slack.invalid/api/chat.postMessage",
        auth: "Bearer xoxb-unit",
        body: {
          channel: "C1",
          thread_ts: "1700000000.000100",
          mrkdwn: false,
          text: "done\n\nAcknowledge: /ironclaw ack esc_1",
        } satisfies ChatPostMessageArguments,
      },
      {
        url: "http://slack.invalid/api/chat.postMessage",
        auth: "Bearer xoxb-unit",
        body: {
          channel: "D1",
          mrkdwn: false,
          text: "<!channel> *not bold*",
        } satisfies ChatPostMessageArguments,
      },
    ]);
  });

  it("take another app's slash command as not theirs, and name the field a malformed one lacks", () => {
    const { channel } = app();
    const other = new URLSearchParams({ command: "/other", text: "pair X", user_id: "U1", channel_id: "D1" });
    expect(channel.handle("application/x-www-form-urlencoded", Buffer.from(other.toString()))).toEqual({
      kind: "ephemeral",
      text: "/other is not a command of this app.",
    });
    const lacking = new URLSearchParams({ command: "/ironclaw", text: "new", channel_id: "D1" });
    expect(() =>
      channel.handle("application/x-www-form-urlencoded", Buffer.from(lacking.toString())),
    ).toThrow(/user_id/);
  });

  it("are all refused in Socket Mode, where the app has no signing secret to check them with", () => {
    const router = { receive: async () => undefined } as unknown as ChannelRouter;
    const socketOnly = new SlackChannel({
      bot: "team",
      token: "xoxb-unit",
      apiBaseUrl: "http://slack.invalid/api",
      slashCommand: "/ironclaw",
      router,
    });
    const body = Buffer.from('{"type":"event_callback"}');
    expect(socketOnly.refusal(String(NOW), sign(body.toString()), body)).toMatch(/Socket Mode/);
  });
});

describe("a Slack app's Socket Mode settings", () => {
  const parse = (table: Record<string, unknown>) =>
    slackBotSchema.safeParse({ bot_token: "xoxb-1", ...table });

  it("need the signing secret or an app-level token, and take a token only when it is an app-level one", () => {
    expect(parse({}).error?.issues[0]).toMatchObject({
      path: ["signing_secret"],
      message: expect.stringMatching(/unless app_token or app_token_env is given \(Socket Mode\)/),
    });
    expect(parse({ app_token_env: "SLACK_APP_TOKEN" }).success).toBe(true);
    expect(parse({ app_token: "xoxb-1" }).error?.issues[0]).toMatchObject({
      path: ["app_token"],
      message: expect.stringMatching(/xapp-/),
    });
    expect(parse({ app_token: "xapp-1", app_token_env: "SLACK_APP_TOKEN" }).error?.issues[0]).toMatchObject({
      path: ["app_token_env"],
    });
  });

  it("name the variable that holds no app-level token, and run no Socket Mode without one", () => {
    const config = slackBotSchema.parse({ bot_token: "xoxb-1", app_token_env: "SLACK_APP_TOKEN" });
    const { channel } = app();
    expect(() => createSlackSocketMode(config, channel, { env: { SLACK_APP_TOKEN: "xoxb-bot" } })).toThrow(
      /integrations\.slack\.app_token_env: names SLACK_APP_TOKEN, which does not hold an app-level token/,
    );
    expect(() => createSlackSocketMode(config, channel, { env: {} })).toThrow(
      /SLACK_APP_TOKEN, which is not set/,
    );
    const signed = slackBotSchema.parse({ bot_token: "xoxb-1", signing_secret: "s" });
    expect(createSlackSocketMode(signed, channel, { env: {} })).toBeUndefined();
  });
});
