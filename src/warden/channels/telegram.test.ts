import Database from "better-sqlite3";
import Fastify, { type FastifyInstance } from "fastify";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTelegramServer, type TelegramServer } from "../../../test/support/telegram-server.js";
import { telegramBotSchema } from "../../contracts/index.js";
import { createLogger } from "../../core/index.js";
import type { ChatEvent, ChatService, ChatTurnInput, ConversationPost, JobNotice } from "../chat-events.js";
import { ChannelRouter, PAIRING_HELP } from "./channel.js";
import { ChannelLinks } from "./channel-links.js";
import { createTelegramChannel } from "./telegram.js";
import { registerTelegramRoutes } from "./telegram-routes.js";

/** The warden's chat core as a script: each turn yields the events `script` returns for it. */
class ScriptedChat implements ChatService {
  readonly inputs: ChatTurnInput[] = [];
  script: (input: ChatTurnInput) => ChatEvent[] = (input) => [
    { type: "session", sessionId: input.sessionId ?? `session-${this.inputs.length}` },
    done(`echo: ${input.text}`),
  ];
  private readonly listeners = new Set<(notice: JobNotice) => void>();
  private readonly postListeners = new Set<(post: ConversationPost) => void>();

  async *turn(input: ChatTurnInput): AsyncIterable<ChatEvent> {
    this.inputs.push(input);
    yield* this.script(input);
  }

  onJobNotice(listener: (notice: JobNotice) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  notify(notice: JobNotice): void {
    for (const listener of this.listeners) listener(notice);
  }

  onConversationPost(listener: (post: ConversationPost) => void): () => void {
    this.postListeners.add(listener);
    return () => this.postListeners.delete(listener);
  }

  post(post: ConversationPost): void {
    for (const listener of this.postListeners) listener(post);
  }
}

function done(text: string, error?: string): ChatEvent {
  return {
    type: "done",
    text,
    usage: { input_tokens: 1, output_tokens: 1 },
    stopReason: error ? "error" : "stop",
    ...(error ? { error } : {}),
  };
}

const SECRET = "webhook-secret_1";
const TOKEN = "123456:AAbbCC-secret-bot-token";
const silent = createLogger("test", { level: "silent" });

let telegram: TelegramServer;
let app: FastifyInstance;
let base: string;
let db: Database.Database;
let links: ChannelLinks;
let chat: ScriptedChat;
let router: ChannelRouter;
let now: number;
let nextUpdateId = 1;

beforeAll(async () => {
  telegram = await startTelegramServer();
});
afterAll(() => telegram.close());

beforeEach(async () => {
  now = Date.parse("2026-02-01T12:00:00Z");
  db = new Database(":memory:");
  links = new ChannelLinks(db, { now: () => now });
  chat = new ScriptedChat();
  router = new ChannelRouter({ chat, links, logger: silent });
  const config = telegramBotSchema.parse({ token: TOKEN, secret_token: SECRET, api_base_url: telegram.url });
  const bot = createTelegramChannel(config, { router, logger: silent });
  app = Fastify();
  registerTelegramRoutes(app, { bots: new Map([[bot.name, bot]]) });
  base = await app.listen({ port: 0, host: "127.0.0.1" });
});

afterEach(async () => {
  await router.close();
  await app.close();
  db.close();
  telegram.reset();
});

function textUpdate(text: string, from = 42): Record<string, unknown> {
  return {
    update_id: nextUpdateId++,
    message: {
      message_id: 7,
      date: 1_769_947_200,
      text,
      chat: { id: from, type: "private", first_name: "Ada" },
      from: { id: from, is_bot: false, first_name: "Ada", last_name: "L", language_code: "en" },
    },
  };
}

async function post(update: unknown, options: { secret?: string | null; bot?: string } = {}) {
  const headers: Record<string, string> = { "content-type": "application/json" };
  const secret = options.secret === undefined ? SECRET : options.secret;
  if (secret !== null) headers["x-telegram-bot-api-secret-token"] = secret;
  const response = await fetch(`${base}/channels/telegram/${options.bot ?? "default"}`, {
    method: "POST",
    headers,
    body: typeof update === "string" ? update : JSON.stringify(update),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

/** Sends a message as Telegram would and waits until the warden has answered it. */
async function say(text: string, from = 42) {
  const reply = await post(textUpdate(text, from));
  await router.idle();
  return reply;
}

async function pair(userId: string, from = 42): Promise<void> {
  await say(`/start ${links.issuePairingCode(userId)}`, from);
  telegram.reset();
}

describe("pairing a Telegram chat", () => {
  it("tells an unpaired sender how to pair, without calling the agent", async () => {
    expect(await say("hello?")).toEqual({
      status: 200,
      body: { ok: true, data: { update: "accepted" }, error: null },
    });
    expect(telegram.sentMessages()).toEqual([{ chatId: 42, text: PAIRING_HELP }]);
    expect(chat.inputs).toEqual([]);
  });

  it("links the sender with /start CODE, then routes the next message to that user's agent", async () => {
    const code = links.issuePairingCode("user-ada");
    await say(`/start ${code}`);
    expect(telegram.sentMessages()[0]?.text).toMatch(/^Paired\./);
    expect(links.linkFor("telegram", "default", "42")).toMatchObject({
      userId: "user-ada",
      senderName: "Ada L",
    });

    await say("what is on my calendar?");
    expect(chat.inputs).toMatchObject([
      { userId: "user-ada", text: "what is on my calendar?", channel: "telegram:default" },
    ]);
    expect(chat.inputs[0]?.sessionId).toBeUndefined();
    expect(telegram.sentMessages()[1]).toEqual({ chatId: 42, text: "echo: what is on my calendar?" });
    expect(telegram.calls[1]?.token).toBe(TOKEN);
  });

  it("accepts /pair with a lower-case code", async () => {
    await say(`/pair ${links.issuePairingCode("user-ada").toLowerCase()}`);
    expect(links.linkFor("telegram", "default", "42")?.userId).toBe("user-ada");
  });

  it("refuses a code that was already used, and one that has expired", async () => {
    const code = links.issuePairingCode("user-ada");
    await say(`/start ${code}`, 42);
    await say(`/start ${code}`, 43);
    const late = links.issuePairingCode("user-bob", 60_000);
    now += 60_001;
    await say(`/pair ${late}`, 44);
    expect(telegram.sentMessages().map((m) => m.text)).toEqual([
      expect.stringMatching(/^Paired\./),
      expect.stringMatching(/unknown, used or expired/),
      expect.stringMatching(/unknown, used or expired/),
    ]);
    expect(links.linkFor("telegram", "default", "43")).toBeUndefined();
    expect(links.linkFor("telegram", "default", "44")).toBeUndefined();
  });

  it("answers a sender over its limit of wrong codes with the wait, and pairs nothing even with the right code", async () => {
    const code = links.issuePairingCode("user-ada");
    for (const guess of ["AAAA2222", "AAAA3333", "AAAA4444", "AAAA5555", "AAAA6666"])
      await say(`/pair ${guess}`);
    await say(`/pair ${code}`);
    const texts = telegram.sentMessages().map((m) => String(m.text));
    expect(texts.slice(0, 5)).toEqual(Array(5).fill(expect.stringMatching(/unknown, used or expired/)));
    expect(texts[5]).toBe(
      "Too many wrong pairing codes from this chat. Nothing was paired; wait 10 minutes, then send /pair <code> again.",
    );
    expect(links.linkFor("telegram", "default", "42")).toBeUndefined();
    expect(chat.inputs).toEqual([]);
    now += 10 * 60_000;
    await say(`/pair ${code}`);
    expect(telegram.sentMessages().at(-1)?.text).toMatch(/^Paired\./);
  });
});

describe("talking to the agent", () => {
  it("continues the first turn's session on the next message, also after a restart", async () => {
    await pair("user-ada");
    chat.script = (input) => [{ type: "session", sessionId: input.sessionId ?? "s-first" }, done("ok")];
    await say("one");
    await router.close();
    // A restarted daemon: new store and router over the same host.db.
    router = new ChannelRouter({ chat, links: new ChannelLinks(db), logger: silent });
    const bot = createTelegramChannel(
      telegramBotSchema.parse({ token: TOKEN, secret_token: SECRET, api_base_url: telegram.url }),
      { router, logger: silent },
    );
    await app.close();
    app = Fastify();
    registerTelegramRoutes(app, { bots: new Map([[bot.name, bot]]) });
    base = await app.listen({ port: 0, host: "127.0.0.1" });
    await say("two");
    expect(chat.inputs.map((i) => i.sessionId)).toEqual([undefined, "s-first"]);
  });

  it("sends the error sentence when the turn fails", async () => {
    await pair("user-ada");
    chat.script = () => [done("", "Your cell is halted; start it from the UI.")];
    await say("hi");
    expect(telegram.sentMessages()).toEqual([
      { chatId: 42, text: "Your cell is halted; start it from the UI." },
    ]);
  });

  it("splits a 4,500-character answer into two messages under Telegram's limit", async () => {
    await pair("user-ada");
    const answer = "x".repeat(4_500);
    chat.script = () => [done(answer)];
    await say("long please");
    const texts = telegram.sentMessages().map((m) => String(m.text));
    expect(texts.map((t) => t.length)).toEqual([4096, 404]);
    expect(texts.join("")).toBe(answer);
  });

  it("retries a 429 from the Bot API after retry_after", async () => {
    await pair("user-ada");
    telegram.failNext({ status: 429, description: "Too Many Requests: retry after 1", retryAfterSeconds: 1 });
    await say("hi");
    const [refused, accepted] = telegram.calls;
    expect(telegram.calls).toHaveLength(2);
    expect(accepted?.body).toEqual(refused?.body);
    expect((accepted?.at ?? 0) - (refused?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it("runs one turn for an update Telegram delivers twice", async () => {
    await pair("user-ada");
    const update = textUpdate("once");
    await post(update);
    await post(update);
    await router.idle();
    expect(chat.inputs).toHaveLength(1);
  });
});

describe("job notices", () => {
  it("reach every chat linked to the job's user, and only those", async () => {
    await pair("user-ada", 42);
    await pair("user-ada", 43);
    await pair("user-bob", 44);
    chat.notify({ userId: "user-ada", jobId: "daily", status: "succeeded", resultRef: "logs/2026-02-01.md" });
    chat.notify({ userId: "user-ada", jobId: "backup", status: "failed", error: "disk full" });
    await router.idle();
    expect(telegram.sentMessages()).toEqual([
      { chatId: 42, text: "Job daily succeeded: logs/2026-02-01.md" },
      { chatId: 43, text: "Job daily succeeded: logs/2026-02-01.md" },
      { chatId: 42, text: "Job backup failed: disk full" },
      { chatId: 43, text: "Job backup failed: disk full" },
    ]);
  });
});

describe("messages posted to a conversation outside a turn", () => {
  it("reach the user's chats on the bot the conversation came from, and no other", async () => {
    await pair("user-ada", 42);
    await pair("user-bob", 44);
    const run = { userId: "user-ada", sessionId: "s-1", source: "command", ref: "run_1" };
    chat.post({ ...run, channel: "telegram:default", kind: "progress", text: "Order order_1 was merged." });
    chat.post({ ...run, channel: "telegram:default", kind: "reply", text: "Rate limiting is in." });
    chat.post({ ...run, channel: "api", kind: "reply", text: "only in the UI" });
    chat.post({ ...run, channel: "telegram:other", kind: "reply", text: "another bot's" });
    await router.idle();
    expect(telegram.sentMessages()).toEqual([
      { chatId: 42, text: "command run_1: Order order_1 was merged." },
      { chatId: 42, text: "Rate limiting is in." },
    ]);
  });
});

describe("the webhook", () => {
  it("answers 403 to a missing or wrong secret and calls nothing", async () => {
    await pair("user-ada");
    const missing = await post(textUpdate("hi"), { secret: null });
    const wrong = await post(textUpdate("hi"), { secret: `${SECRET}x` });
    await router.idle();
    expect([missing.status, wrong.status]).toEqual([403, 403]);
    expect(wrong.body.error).toMatchObject({ code: "forbidden" });
    expect(chat.inputs).toEqual([]);
    expect(telegram.calls).toEqual([]);
  });

  it("answers 404 for a bot that is not configured", async () => {
    const reply = await post(textUpdate("hi"), { bot: "other" });
    expect(reply.status).toBe(404);
    expect(reply.body.error).toEqual({ code: "not_found", message: "no Telegram bot named other" });
  });

  it("answers 400 naming the field of a malformed text message", async () => {
    const update = textUpdate("hi");
    delete (update.message as { chat: Record<string, unknown> }).chat.id;
    const reply = await post(update);
    expect(reply.status).toBe(400);
    expect(reply.body.error).toMatchObject({
      code: "validation_failed",
      message: "$.message.chat.id: is required",
    });
    expect((await post({ message: {} })).body.error).toMatchObject({ message: "$.update_id: is required" });
    expect((await post("{not json")).status).toBe(400);
  });

  it("acknowledges and ignores edits, photos, group chats and bots", async () => {
    const photo = textUpdate("x");
    delete (photo.message as Record<string, unknown>).text;
    const group = textUpdate("hi");
    (group.message as { chat: Record<string, unknown> }).chat.type = "group";
    const fromBot = textUpdate("hi");
    (fromBot.message as { from: Record<string, unknown> }).from.is_bot = true;
    const edit = { update_id: nextUpdateId++, edited_message: textUpdate("hi").message };
    for (const update of [photo, group, fromBot, edit]) {
      expect(await post(update)).toEqual({
        status: 200,
        body: { ok: true, data: { update: "ignored" }, error: null },
      });
    }
    await router.idle();
    expect(telegram.calls).toEqual([]);
  });
});

describe("pressed buttons", () => {
  const pressed = (data: unknown, chatType = "private") => ({
    update_id: nextUpdateId++,
    callback_query: {
      id: "cb-1",
      data,
      from: { id: 42, is_bot: false },
      message: { message_id: 7, date: 1, chat: { id: 42, type: chatType } },
    },
  });

  it("come to the router as the slash command their data spells, and end Telegram's spinner", async () => {
    await pair("ada");
    await post(pressed("new:x"));
    await router.idle();
    expect(telegram.sentMessages()).toEqual([{ chatId: 42, text: "Started a new conversation." }]);
    expect(telegram.calls.find((c) => c.method === "answerCallbackQuery")?.body).toEqual({
      callback_query_id: "cb-1",
    });
  });

  it("are ignored in a group or without command data, and a malformed one is answered 400 naming the field", async () => {
    await pair("ada");
    expect((await post(pressed("new:x", "group"))).body.data).toEqual({ update: "ignored" });
    expect((await post(pressed("no command"))).body.data).toEqual({ update: "ignored" });
    const bad = await post({
      update_id: nextUpdateId++,
      callback_query: { data: "ack:e1", from: { id: 42 } },
    });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body.error)).toContain("callback_query.id");
    await router.idle();
    expect(telegram.calls).toEqual([]);
  });
});

describe("createTelegramChannel", () => {
  const fromEnv = { token_env: "TG_TOKEN", secret_token_env: "TG_SECRET", bot: "family" };

  it("reads the token and secret from the variables the config names", async () => {
    const config = telegramBotSchema.parse({ ...fromEnv, api_base_url: telegram.url });
    const bot = createTelegramChannel(config, {
      router,
      logger: silent,
      env: { TG_TOKEN: "t:1", TG_SECRET: "s" },
    });
    expect(bot.name).toBe("family");
    expect(bot.checkSecret("s")).toBe(true);
    await bot.send("42", "hi");
    expect(telegram.calls[0]?.token).toBe("t:1");
  });

  it("names the variable that is not set", () => {
    const config = telegramBotSchema.parse(fromEnv);
    expect(() => createTelegramChannel(config, { router, env: { TG_TOKEN: "t:1" } })).toThrow(
      "ironclawd.toml: integrations.telegram.secret_token_env: names TG_SECRET, which is not set",
    );
  });
});
