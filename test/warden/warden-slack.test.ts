import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeCellBackend } from "../support/fake-cell.js";
import { reply } from "../support/model-server.js";
import {
  type SlackAppEvent,
  type SlackServer,
  slackDirectMessage,
  slackEventRequest,
  slackIntegration,
  slackMention,
  slackSignature,
  slackSlashCommand,
  slackSlashForm,
  slackUrlVerification,
  startSlackServer,
} from "../support/slack-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

let h: WardenHarness;
let slack: SlackServer;
let call: ReturnType<typeof api>;
let events = 0;

const DM = "D0DAVE";
const DAVE = "U0DAVE";

/** POSTs a body to the app's request URL, signed as Slack signs it unless `headers` says otherwise. */
const request = (body: string, contentType: string, headers?: Record<string, string>) =>
  fetch(`${h.url}/channels/slack/team`, {
    method: "POST",
    headers: { "content-type": contentType, ...(headers ?? slackSignature(body)) },
    body,
  });
const event = (inner: SlackAppEvent, eventId = `Ev${++events}`) =>
  JSON.stringify(slackEventRequest(inner, eventId));
const dm = (text: string, user = DAVE, channel = DM) =>
  event(slackDirectMessage(user, channel, text, `1700000000.${++events}`));
const slash = (text: string, channel = DM, user = DAVE) =>
  slackSlashForm(slackSlashCommand("/ironclaw", text, { id: user, name: "dave" }, channel));
const json = (body: string, headers?: Record<string, string>) => request(body, "application/json", headers);
const form = (body: string) => request(body, "application/x-www-form-urlencoded");

beforeAll(async () => {
  slack = await startSlackServer();
  h = await startWardenHarness({
    backend: createFakeCellBackend(),
    // The smallest message limit the config takes, so an oversize message is one Slack itself would carry.
    configure: (config) => ({
      ...config,
      integrations: slackIntegration(slack),
      limits: { ...config.limits, max_message_bytes: 1024 },
    }),
  });
  call = api(h.url, await h.addUser("dave"));
}, 60_000);
afterAll(async () => {
  await h?.close();
  await slack?.close();
});

describe("the Slack channel through the warden", () => {
  it("answers Slack's URL check with its challenge, signed", async () => {
    const body = JSON.stringify(slackUrlVerification("3eZbrw1aBm2rZgRNFdxV"));
    const answer = await json(body);
    expect(answer.status).toBe(200);
    expect(await answer.json()).toEqual({ challenge: "3eZbrw1aBm2rZgRNFdxV" });
  });

  it("refuses unsigned, badly signed and stale requests (401) and never runs a turn", async () => {
    const before = h.model.chatRequests().length;
    const body = dm("hello");
    const stale = slackSignature(body, undefined, Math.floor(Date.now() / 1000) - 6 * 60);
    const cases = [
      {},
      { ...slackSignature(body), "x-slack-signature": `v0=${"0".repeat(64)}` },
      slackSignature(body, "another-apps-secret"),
      stale,
      // A signature over another body does not cover this one.
      slackSignature(dm("something else")),
    ];
    for (const headers of cases) {
      const answer = await json(body, headers);
      expect(answer.status).toBe(401);
      expect(((await answer.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    }
    expect((await json(body, stale).then((r) => r.json())) as object).toMatchObject({
      error: { message: expect.stringMatching(/5 minutes/) },
    });
    expect(h.model.chatRequests().length).toBe(before);
    expect(slack.posts()).toEqual([]);
  });

  it("pairs by /ironclaw pair <code> in the app's DM, then answers DMs from the user's own agent", async () => {
    const stranger = await json(dm("hi there", "U0STRANGER", "D0STRANGER"));
    expect(stranger.status).toBe(200);
    await slack.waitForPosts(1);
    expect(slack.posts()[0]).toMatchObject({
      channel: "D0STRANGER",
      text: expect.stringMatching(/\/ironclaw pair <code>/),
    });

    const pairing = (await (await call("POST", "/api/channels/pairing-code")).json()) as {
      data: { code: string; channels: Array<{ channel: string; how: string }> };
    };
    expect(pairing.data.channels).toContainEqual({
      channel: "slack:team",
      how: expect.stringContaining(
        `In a direct message with the app, send /ironclaw pair ${pairing.data.code}`,
      ),
    });
    const paired = await form(slash(`pair ${pairing.data.code}`));
    expect(paired.status).toBe(200);
    await slack.waitForPosts(2);
    expect(slack.posts()[1]).toMatchObject({ channel: DM, text: expect.stringMatching(/^Paired/) });

    h.model.enqueue(reply.text("Bread and eggs."));
    expect((await json(dm("what is on my list?"))).status).toBe(200);
    await slack.waitForPosts(3, 30_000);
    expect(slack.posts()[2]).toEqual({ channel: DM, text: "Bread and eggs." });
    const sessions = (await (await call("GET", "/api/sessions")).json()) as {
      data: Array<{ channel: string; title: string }>;
    };
    expect(sessions.data[0]).toMatchObject({ channel: "slack:team", title: "what is on my list?" });
    // The stranger was told once how to pair, and nothing else.
    expect(slack.posts().filter((p) => p.channel === "D0STRANGER")).toHaveLength(1);
  }, 60_000);

  it("answers a message over [limits] max_message_bytes with why, and runs no turn", async () => {
    const posted = slack.posts().length;
    const asked = h.model.chatRequests().length;
    const answer = await json(dm("a long paste: ".padEnd(1500, "x")));
    expect(answer.status).toBe(200);
    await slack.waitForPosts(posted + 1, 30_000);
    expect(slack.posts()[posted]).toEqual({
      channel: DM,
      text: expect.stringMatching(
        /^This message was not sent to your agent: message: a message may be at most 1 KiB \(1024 bytes\) \(\[limits\] max_message_bytes in ironclawd\.toml\)/,
      ),
    });
    expect(h.model.chatRequests().length).toBe(asked);
  }, 60_000);

  it("runs a redelivered event once, however often Slack retries it", async () => {
    const posted = slack.posts().length;
    const asked = h.model.chatRequests().length;
    h.model.enqueue(reply.text("Once."));
    const body = dm("answer once");
    expect((await json(body)).status).toBe(200);
    await slack.waitForPosts(posted + 1, 30_000);
    for (const retry of ["1", "2"]) {
      const again = await json(body, { ...slackSignature(body), "x-slack-retry-num": retry });
      expect(again.status).toBe(200);
    }
    // A message after the retries queues behind anything they started: once it is answered, they were not turns.
    h.model.enqueue(reply.text("After."));
    expect((await json(dm("and then"))).status).toBe(200);
    await slack.waitForPosts(posted + 2, 30_000);
    expect(h.model.chatRequests().length).toBe(asked + 2);
    expect(slack.posts().slice(posted)).toEqual([
      { channel: DM, text: "Once." },
      { channel: DM, text: "After." },
    ]);
  }, 60_000);

  it("answers a paired user's mention in a thread, and a stranger's with one line and no turn", async () => {
    const posted = slack.posts().length;
    h.model.enqueue(reply.text("In the thread."));
    const mention = (user: string, text: string, ts: string) =>
      json(event(slackMention(user, "C0TEAM", `<@U0APP> ${text}`, ts)));
    expect((await mention(DAVE, "summarise", "1700000100.000100")).status).toBe(200);
    await slack.waitForPosts(posted + 1, 30_000);
    expect(slack.posts()[posted]).toEqual({
      channel: "C0TEAM",
      text: "In the thread.",
      thread_ts: "1700000100.000100",
    });
    // The model saw the words, not the mention.
    expect(JSON.stringify(h.model.chatRequests().at(-1))).toContain("summarise");

    const asked = h.model.chatRequests().length;
    expect((await mention("U0STRANGER", "tell me dave's secrets", "1700000200.000100")).status).toBe(200);
    // A paired user cannot pair a channel thread either: its notices would be read by the whole channel.
    expect((await mention(DAVE, "/pair ABCD2345", "1700000300.000100")).status).toBe(200);
    await slack.waitForPosts(posted + 3, 30_000);
    for (const post of slack.posts().slice(posted + 1))
      expect(post).toMatchObject({ channel: "C0TEAM", text: expect.stringMatching(/Message me directly/) });
    expect(h.model.chatRequests().length).toBe(asked);
  }, 60_000);

  it("keeps the slash command to DMs and to its words, answering at once and only to the person", async () => {
    const inChannel = await form(slash("pair ABCD2345", "C0TEAM"));
    expect(await inChannel.json()).toEqual({
      response_type: "ephemeral",
      text: expect.stringMatching(/direct message with the app/),
    });
    const unknown = await form(slash("dance"));
    expect(await unknown.json()).toMatchObject({
      response_type: "ephemeral",
      text: expect.stringMatching(/^Usage/),
    });
  });

  it("splits a long answer into pieces Slack takes, and waits out a 429's Retry-After", async () => {
    const posted = slack.posts().length;
    const long = Array.from({ length: 300 }, (_, i) => `Line ${i} of a long answer.`).join("\n");
    h.model.enqueue(reply.text(long));
    slack.failNext({ status: 429, error: "ratelimited", retryAfterSeconds: 1 });
    const asked = Date.now();
    expect((await json(dm("a long one please"))).status).toBe(200);
    await slack.waitForPosts(posted + 3, 30_000);
    const pieces = slack.posts().slice(posted + 1);
    expect(pieces.every((p) => String(p.text).length <= 4000)).toBe(true);
    expect(pieces.map((p) => p.text).join("\n")).toBe(long);
    // The refused first attempt and its retry a second later.
    const attempts = slack.calls.filter((c) => c.at >= asked && c.method === "chat.postMessage");
    expect((attempts[1]?.at ?? 0) - (attempts[0]?.at ?? 0)).toBeGreaterThanOrEqual(900);
  }, 60_000);

  it("answers a malformed event with 400 naming the field, and an unknown app with 404", async () => {
    // Not what Slack sends: a message event without its ts.
    const { ts: _ts, ...lacking } = slackDirectMessage(DAVE, DM, "x", "1700000000.1");
    const bad = await json(
      JSON.stringify({
        ...slackEventRequest(slackDirectMessage(DAVE, DM, "x", "1.1"), "EvBad"),
        event: lacking,
      }),
    );
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/event\.ts|ts/);
    const notJson = await json("{not json");
    expect(notJson.status).toBe(400);
    const unknown = await fetch(`${h.url}/channels/slack/nobody`, {
      method: "POST",
      headers: { "content-type": "application/json", ...slackSignature("{}") },
      body: "{}",
    });
    expect(unknown.status).toBe(404);
  });
});
