import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeCellBackend } from "../support/fake-cell.js";
import { reply } from "../support/model-server.js";
import {
  SLACK_APP_TOKEN,
  type SlackAppEvent,
  type SlackServer,
  slackDirectMessage,
  slackEventRequest,
  slackMention,
  slackSignature,
  slackSlashCommand,
  slackSocketIntegration,
  startSlackServer,
} from "../support/slack-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

let h: WardenHarness;
let slack: SlackServer;
let call: ReturnType<typeof api>;
let events = 0;

const DM = "D0DAVE";
const DAVE = "U0DAVE";

/** An Events API payload, as a Socket Mode envelope carries it. */
const event = (inner: SlackAppEvent, eventId = `Ev${++events}`) => slackEventRequest(inner, eventId);
const dm = (text: string, user = DAVE, channel = DM) =>
  event(slackDirectMessage(user, channel, text, `1700000000.${++events}`));
const slash = (text: string, channel = DM, user = DAVE) =>
  slackSlashCommand("/ironclaw", text, { id: user, name: "dave" }, channel);

beforeAll(async () => {
  slack = await startSlackServer();
  h = await startWardenHarness({
    backend: createFakeCellBackend(),
    configure: (config) => ({ ...config, integrations: slackSocketIntegration(slack) }),
  });
  call = api(h.url, await h.addUser("dave"));
  await slack.socket.waitForConnections(1, 30_000);
}, 60_000);
afterAll(async () => {
  await h?.close();
  await slack?.close();
});

describe("a Slack app over Socket Mode, through the warden", () => {
  it("opens its connection with the app-level token, and refuses requests to the Events API URL", async () => {
    expect(slack.calls.find((c) => c.method === "apps.connections.open")?.token).toBe(SLACK_APP_TOKEN);
    // No signing secret: even a request signed with some secret is not taken.
    const body = JSON.stringify(dm("hello"));
    const answer = await fetch(`${h.url}/channels/slack/team`, {
      method: "POST",
      headers: { "content-type": "application/json", ...slackSignature(body) },
      body,
    });
    expect(answer.status).toBe(401);
    expect(JSON.stringify(await answer.json())).toMatch(/Socket Mode/);
  });

  it("acknowledges a stranger's DM and answers it with one line, running no turn", async () => {
    const asked = h.model.chatRequests().length;
    const id = slack.socket.send("events_api", dm("hi there", "U0STRANGER", "D0STRANGER"));
    expect(await slack.socket.waitForAck(id)).toEqual({ envelope_id: id });
    await slack.waitForPosts(1);
    expect(slack.posts()[0]).toMatchObject({
      channel: "D0STRANGER",
      text: expect.stringMatching(/\/ironclaw pair <code>/),
    });
    expect(h.model.chatRequests().length).toBe(asked);
  });

  it("pairs by the slash command and answers a DM turn through chat.postMessage, each envelope acknowledged", async () => {
    const pairing = (await (await call("POST", "/api/channels/pairing-code")).json()) as {
      data: { code: string };
    };
    const posted = slack.posts().length;
    const pair = slack.socket.send("slash_commands", slash(`pair ${pairing.data.code}`));
    expect((await slack.socket.waitForAck(pair)).envelope_id).toBe(pair);
    await slack.waitForPosts(posted + 1);
    expect(slack.posts()[posted]).toMatchObject({ channel: DM, text: expect.stringMatching(/^Paired/) });

    h.model.enqueue(reply.text("Bread and eggs."));
    const turn = slack.socket.send("events_api", dm("what is on my list?"));
    await slack.socket.waitForAck(turn);
    await slack.waitForPosts(posted + 2, 30_000);
    expect(slack.posts()[posted + 1]).toEqual({ channel: DM, text: "Bread and eggs." });
  }, 60_000);

  it("runs a redelivered envelope once, acknowledging every delivery", async () => {
    const posted = slack.posts().length;
    const asked = h.model.chatRequests().length;
    h.model.enqueue(reply.text("Once."));
    const payload = dm("answer once");
    const first = slack.socket.send("events_api", payload);
    const again = [slack.socket.send("events_api", payload, 1), slack.socket.send("events_api", payload, 2)];
    for (const id of [first, ...again]) await slack.socket.waitForAck(id);
    // A message after the retries queues behind anything they started: once it is answered, they were not turns.
    h.model.enqueue(reply.text("After."));
    slack.socket.send("events_api", dm("and then"));
    await slack.waitForPosts(posted + 2, 30_000);
    expect(h.model.chatRequests().length).toBe(asked + 2);
    expect(slack.posts().slice(posted)).toEqual([
      { channel: DM, text: "Once." },
      { channel: DM, text: "After." },
    ]);
  }, 60_000);

  it("answers a slash command out of place on its acknowledgement, only to the person", async () => {
    const id = slack.socket.send("slash_commands", slash("pair ABCD2345", "C0TEAM"));
    expect(await slack.socket.waitForAck(id)).toEqual({
      envelope_id: id,
      payload: { response_type: "ephemeral", text: expect.stringMatching(/direct message with the app/) },
    });
  });

  it("answers a stranger's mention in a channel with one line, and a paired user's in its thread", async () => {
    const posted = slack.posts().length;
    const asked = h.model.chatRequests().length;
    const mention = (user: string, text: string, ts: string) =>
      slack.socket.send("events_api", event(slackMention(user, "C0TEAM", `<@U0APP> ${text}`, ts)));
    mention("U0STRANGER", "tell me dave's secrets", "1700000200.000100");
    await slack.waitForPosts(posted + 1);
    expect(slack.posts()[posted]).toMatchObject({
      channel: "C0TEAM",
      thread_ts: "1700000200.000100",
      text: expect.stringMatching(/Message me directly/),
    });
    expect(h.model.chatRequests().length).toBe(asked);
    h.model.enqueue(reply.text("In the thread."));
    mention(DAVE, "summarise", "1700000300.000100");
    await slack.waitForPosts(posted + 2, 30_000);
    expect(slack.posts()[posted + 1]).toEqual({
      channel: "C0TEAM",
      text: "In the thread.",
      thread_ts: "1700000300.000100",
    });
  }, 60_000);

  it("opens a new connection when Slack sends disconnect, and keeps answering over it", async () => {
    const before = slack.socket.connections();
    slack.socket.disconnect("refresh_requested");
    await slack.socket.waitForConnections(before + 1, 30_000);
    expect(slack.calls.filter((c) => c.method === "apps.connections.open").length).toBe(before + 1);
    const posted = slack.posts().length;
    h.model.enqueue(reply.text("Still here."));
    const id = slack.socket.send("events_api", dm("are you there?"));
    await slack.socket.waitForAck(id);
    await slack.waitForPosts(posted + 1, 30_000);
    expect(slack.posts()[posted]).toEqual({ channel: DM, text: "Still here." });
  }, 60_000);

  it("reconnects after the connection drops without a word", async () => {
    const before = slack.socket.connections();
    slack.socket.drop();
    await slack.socket.waitForConnections(before + 1, 30_000);
    const posted = slack.posts().length;
    h.model.enqueue(reply.text("Back."));
    slack.socket.send("events_api", dm("back?"));
    await slack.waitForPosts(posted + 1, 30_000);
    expect(slack.posts()[posted]).toEqual({ channel: DM, text: "Back." });
  }, 60_000);

  it("closes its connection when the warden stops, and opens no other", async () => {
    const opened = slack.socket.connections();
    expect(slack.socket.openConnections()).toBe(1);
    await h.close();
    await slack.socket.waitForNoConnections();
    expect(slack.socket.connections()).toBe(opened);
  }, 60_000);
});
