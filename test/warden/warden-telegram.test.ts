import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeCellBackend } from "../support/fake-cell.js";
import { reply } from "../support/model-server.js";
import { startTelegramServer, type TelegramServer, telegramIntegration } from "../support/telegram-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

const SECRET = "webhook-secret-42";
let h: WardenHarness;
let bot: TelegramServer;
let call: ReturnType<typeof api>;
let updateId = 1000;

const update = (text: string, from = 777) => ({
  update_id: updateId++,
  message: {
    message_id: updateId,
    date: 1,
    text,
    chat: { id: from, type: "private" },
    from: { id: from, is_bot: false, first_name: "Carol" },
  },
});
const webhook = (body: unknown, secret: string | null = SECRET) =>
  fetch(`${h.url}/channels/telegram/family`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      ...(secret ? { "x-telegram-bot-api-secret-token": secret } : {}),
    },
    body: JSON.stringify(body),
  });

beforeAll(async () => {
  bot = await startTelegramServer();
  h = await startWardenHarness({
    backend: createFakeCellBackend(),
    configure: (config) => ({
      ...config,
      integrations: telegramIntegration(bot, SECRET),
    }),
  });
  call = api(h.url, await h.addUser("carol"));
}, 60_000);
afterAll(async () => {
  await h?.close();
  await bot?.close();
});

describe("the Telegram channel through the warden", () => {
  it("pairs a Telegram user by a one-time code, then answers their messages from their own cell", async () => {
    type Pairing = {
      data: { code: string; bots: string[]; channels: Array<{ channel: string; how: string }> };
    };
    const issue = async () => (await (await call("POST", "/api/channels/pairing-code")).json()) as Pairing;
    // The warden asks Telegram for the bot's username when it starts, without holding the start up for it.
    let pairing = await issue();
    await expect
      .poll(async () => {
        pairing = await issue();
        return pairing.data.channels[0]?.how;
      })
      .toMatch(/t\.me/);
    expect(pairing.data.bots).toEqual(["family"]);
    // The bot's username came from getMe at start: the instruction carries its deep link.
    expect(pairing.data.channels).toEqual([
      {
        channel: "telegram:family",
        how: `Open https://t.me/ironclaw_test_bot?start=${pairing.data.code} — or send /pair ${pairing.data.code} to the bot in a private chat.`,
      },
    ]);
    // What the deep link makes Telegram send: /start with the code.
    expect((await webhook(update(`/start ${pairing.data.code}`))).status).toBe(200);
    await bot.waitForMessages(1, 30_000);
    expect(String(bot.sentMessages()[0]?.text)).toMatch(/Paired/);

    h.model.enqueue(reply.text("Milk is on the list."));
    expect((await webhook(update("add milk"))).status).toBe(200);
    await bot.waitForMessages(2, 60_000);
    expect(bot.sentMessages()[1]).toEqual({ chatId: 777, text: "Milk is on the list." });
    // The turn ran in carol's session, kept by the warden.
    const sessions = (await (await call("GET", "/api/sessions")).json()) as {
      data: Array<{ channel: string; title: string }>;
    };
    expect(sessions.data[0]).toMatchObject({ channel: "telegram:family", title: "add milk" });
  }, 60_000);

  it("refuses a webhook call with a wrong or missing secret (403) and never runs a turn", async () => {
    const before = h.model.chatRequests().length;
    expect((await webhook(update("hello"), "wrong")).status).toBe(403);
    expect((await webhook(update("hello"), null)).status).toBe(403);
    expect(h.model.chatRequests().length).toBe(before);
  });

  it("answers a malformed update with 400 naming the field, and an unknown bot with 404", async () => {
    const bad = await webhook({
      update_id: 5,
      message: { message_id: 1, date: 1, text: "x", chat: { type: "private" }, from: { id: 1 } },
    });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/chat.*id/);
    const unknown = await fetch(`${h.url}/channels/telegram/nobody`, {
      method: "POST",
      headers: { "x-telegram-bot-api-secret-token": SECRET },
      body: "{}",
    });
    expect(unknown.status).toBe(404);
  });
});
