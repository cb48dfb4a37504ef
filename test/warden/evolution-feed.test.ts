import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EvolutionStore, type StoredEnvelope } from "../../src/evolution/index.js";
import { createFakeCellBackend } from "../support/fake-cell.js";
import { reply } from "../support/model-server.js";
import { startTelegramServer, type TelegramServer, telegramIntegration } from "../support/telegram-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// IronClaw's own conversations feed evolution through a real warden: the agent answers from the scripted model
// over real HTTP, and what lands under IRONCLAW_HOME/evolution is read back with the store.

const SECRET = "evolution-webhook-secret";
let home: string;
let h: WardenHarness;
let bot: TelegramServer;
let adaToken: string;
let ada: ReturnType<typeof api>;
let bob: ReturnType<typeof api>;

beforeAll(async () => {
  bot = await startTelegramServer();
  // Kept across the warden's restart below.
  home = await mkdtemp(join(tmpdir(), "ironclaw-evolution-feed-"));
  h = await startWarden();
  adaToken = await h.addUser("ada");
  ada = api(h.url, adaToken);
  bob = api(h.url, await h.addUser("bob"));
}, 60_000);
afterAll(async () => {
  await h?.close();
  await bot?.close();
  await rm(home, { recursive: true, force: true });
});

const startWarden = () =>
  startWardenHarness({
    backend: createFakeCellBackend(),
    home,
    configure: (config) => ({ ...config, integrations: telegramIntegration(bot, SECRET) }),
  });

type Json = Record<string, unknown>;
const data = async (response: Response) => ((await response.json()) as { data: Json }).data;
const errorOf = async (response: Response) =>
  ((await response.json()) as { error: { code: string; message: string } }).error;
const state = () => EvolutionStore.open(join(h.home, "evolution"));
const settled = () => h.warden.context.evolution.settle();
const startsOf = (sessionId: string) =>
  state()
    .envelopes()
    .filter((line: StoredEnvelope) => line.envelope.event.session_id === sessionId)
    .filter((line) => line.envelope.event.event_kind === "session_started");

async function answerSeqs(caller: ReturnType<typeof api>, sessionId: string): Promise<number[]> {
  const detail = await data(await caller("GET", `/api/sessions/${sessionId}`));
  return (detail.entries as Array<{ seq: number; role: string }>)
    .filter((entry) => entry.role === "assistant")
    .map((entry) => entry.seq);
}

/** A turn through the Telegram webhook, as Telegram would deliver it, answered in the chat. */
async function telegram(text: string, updateId: number): Promise<string> {
  const before = bot.sentMessages().length;
  await fetch(`${h.url}/channels/telegram/family`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
    body: JSON.stringify({
      update_id: updateId,
      message: { message_id: updateId, date: 1, text, chat: { id: 77, type: "private" }, from: { id: 77 } },
    }),
  });
  await bot.waitForMessages(before + 1, 30_000);
  return String(bot.sentMessages().at(-1)?.text);
}

describe("a chat session feeds evolution", () => {
  let sessionId = "";

  it("emits one session_started per conversation: its first message, the tools it used, where it came from", async () => {
    h.model.enqueue(
      reply.toolCalls([
        { name: "file", arguments: { action: "write", path: "notes/trip.md", content: "# Trip\n" } },
      ]),
      reply.text("Planned."),
      reply.text("Booked."),
    );
    const first = await ada("POST", "/api/chat", { text: "  Plan my trip to Lisbon  " });
    expect(first.status).toBe(200);
    sessionId = (await data(first)).session_id as string;
    const second = await ada("POST", "/api/chat", { text: "and book it", session_id: sessionId });
    expect(second.status).toBe(200);
    await settled();

    const starts = startsOf(sessionId);
    expect(starts).toHaveLength(1);
    expect(starts[0]?.envelope.event).toMatchObject({
      event_kind: "session_started",
      task: "Plan my trip to Lisbon",
      selected_skill_ids: ["file"],
      metadata: { channel: "api", user_id: "ada", session_id: sessionId },
    });
    expect(starts[0]?.received.submitted_by).toBe("ada");
    expect(state().sessionOwner(sessionId)).toBe("ada");
    // session_started is raw evidence only.
    expect(
      state()
        .projected()
        .filter((r) => r.session_id === sessionId),
    ).toEqual([]);
  }, 60_000);

  it("a conversation of the OpenAI endpoint emits its session_started too", async () => {
    h.model.enqueue(reply.text("Sunny."));
    const response = await ada("POST", "/v1/chat/completions", {
      model: "assistant",
      messages: [{ role: "user", content: "Weather in Porto?" }],
    });
    expect(response.status).toBe(200);
    await settled();
    const started = state()
      .envelopes()
      .filter((line) => line.envelope.event.task === "Weather in Porto?");
    expect(started).toHaveLength(1);
    expect(started[0]?.envelope.event.metadata).toMatchObject({ channel: "openai", user_id: "ada" });
  }, 60_000);

  it("a thumbs up with a comment becomes a projected feedback record with lineage, recorded once", async () => {
    const [firstAnswer] = await answerSeqs(ada, sessionId);
    const body = { session_id: sessionId, message_seq: firstAnswer, rating: "up", comment: "great plan" };
    const response = await ada("POST", "/api/feedback", body);
    expect(response.status).toBe(200);
    const recorded = await data(response);
    expect(recorded).toMatchObject({ status: "success", score: 1, stored: true, rating: "up" });

    const records = state()
      .projected()
      .filter((r) => r.session_id === sessionId);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      record_id: recorded.record_id,
      task: "Plan my trip to Lisbon",
      status: "success",
      score: 1,
      comment: "great plan",
      selected_skill_ids: ["file"],
      contract_name: "openclaw_appleseed.runtime_event",
      contract_version: "1.0",
      source_event_id: recorded.event_id,
      metadata: { channel: "api", message_seq: firstAnswer, rating: "up", via: "api" },
    });
    const source = state()
      .envelopes()
      .find((line) => line.envelope.envelope_id === records[0]?.source_envelope_id);
    expect(source?.envelope.event.event_id).toBe(recorded.event_id);
    expect(startsOf(sessionId)).toHaveLength(1);

    const again = await data(await ada("POST", "/api/feedback", body));
    expect(again).toMatchObject({ stored: false, record_id: recorded.record_id });
    expect(
      state()
        .projected()
        .filter((r) => r.session_id === sessionId),
    ).toHaveLength(1);
  }, 60_000);

  it("refuses another user's conversation, a message that is not an answer, and a bad rating, naming the field", async () => {
    const [answer] = await answerSeqs(ada, sessionId);
    const before = state().envelopes().length;
    expect(
      (await bob("POST", "/api/feedback", { session_id: sessionId, message_seq: answer, rating: "up" }))
        .status,
    ).toBe(404);
    const question = await ada("POST", "/api/feedback", {
      session_id: sessionId,
      message_seq: 0,
      rating: "down",
    });
    expect(question.status).toBe(400);
    expect((await errorOf(question)).message).toContain("$.body.message_seq: must be an answer");
    const meh = await ada("POST", "/api/feedback", {
      session_id: sessionId,
      message_seq: answer,
      rating: "meh",
    });
    expect(meh.status).toBe(400);
    expect((await errorOf(meh)).message).toContain("rating: must be one of up, down");
    const missing = await ada("POST", "/api/feedback", { message_seq: answer, rating: "up" });
    expect(missing.status).toBe(400);
    expect((await errorOf(missing)).message).toContain("session_id");
    expect(state().envelopes()).toHaveLength(before);
  }, 60_000);

  it("/feedback down with a comment in Telegram rates the chat's last answer", async () => {
    const code = (await data(await ada("POST", "/api/channels/pairing-code"))).code as string;
    expect(await telegram(`/pair ${code}`, 1)).toContain("Paired");
    expect(await telegram("/feedback up", 2)).toBe("There is no answer to rate yet in this conversation.");
    h.model.enqueue(reply.text("It is 4 km."));
    expect(await telegram("How far is the beach?", 3)).toBe("It is 4 km.");
    expect(await telegram("/feedback sideways", 4)).toContain("/feedback up or /feedback down");
    expect(await telegram("/feedback down far too vague", 5)).toContain("Recorded your feedback");
    await settled();

    const record = state()
      .projected()
      .find((r) => r.task === "How far is the beach?");
    expect(record).toMatchObject({
      status: "failure",
      score: 0,
      comment: "far too vague",
      metadata: { channel: "telegram:family", via: "telegram:family", rating: "down", user_id: "ada" },
    });
    expect(startsOf(record?.session_id ?? "")).toHaveLength(1);
  }, 60_000);

  it("after a restart, a new turn of a conversation records no second start, and the same rating stays one", async () => {
    const [answer] = await answerSeqs(ada, sessionId);
    const envelopes = state().envelopes().length;
    await h.close();
    h = await startWarden();
    ada = api(h.url, adaToken);
    h.model.enqueue(reply.text("Still booked."));
    expect((await ada("POST", "/api/chat", { text: "is it booked?", session_id: sessionId })).status).toBe(
      200,
    );
    const again = { session_id: sessionId, message_seq: answer, rating: "up", comment: "great plan" };
    expect(await data(await ada("POST", "/api/feedback", again))).toMatchObject({ stored: false });
    await settled();
    expect(startsOf(sessionId)).toHaveLength(1);
    expect(state().envelopes()).toHaveLength(envelopes);
  }, 60_000);
});
