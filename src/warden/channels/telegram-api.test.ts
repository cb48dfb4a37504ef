import { createServer } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { startTelegramServer, type TelegramServer } from "../../../test/support/telegram-server.js";
import { createLogger } from "../../core/index.js";
import { TelegramApi, type TelegramApiOptions } from "./telegram-api.js";

const TOKEN = "987654:ZZyyXX-very-secret";

let telegram: TelegramServer;
let logLines: string[];
beforeAll(async () => {
  telegram = await startTelegramServer();
});
afterAll(() => telegram.close());
beforeEach(() => {
  telegram.reset();
  logLines = [];
});

function api(options: Partial<TelegramApiOptions> = {}): TelegramApi {
  const logger = createLogger(
    "telegram-test",
    { level: "debug" },
    { write: (line: string) => logLines.push(line) },
  );
  return new TelegramApi({ baseUrl: `${telegram.url}/`, token: TOKEN, backoffMs: 10, logger, ...options });
}

describe("sendMessage", () => {
  it("posts the chat id as a number and the text as plain text to /bot<token>/sendMessage", async () => {
    expect(await api().sendMessage("-100123", "hello *world*")).toBe(true);
    expect(telegram.calls).toMatchObject([
      { token: TOKEN, method: "sendMessage", body: { chat_id: -100123, text: "hello *world*" } },
    ]);
    expect(telegram.calls[0]?.body).not.toHaveProperty("parse_mode");
  });

  it("waits retry_after seconds after a 429, then sends", async () => {
    telegram.failNext({ status: 429, description: "Too Many Requests: retry after 1", retryAfterSeconds: 1 });
    expect(await api().sendMessage("42", "hi")).toBe(true);
    const [first, second] = telegram.calls;
    expect((second?.at ?? 0) - (first?.at ?? 0)).toBeGreaterThanOrEqual(950);
  });

  it("gives up on a 429 that asks for a longer wait than allowed", async () => {
    telegram.failNext({
      status: 429,
      description: "Too Many Requests: retry after 90",
      retryAfterSeconds: 90,
    });
    expect(await api().sendMessage("42", "hi")).toBe(false);
    expect(telegram.calls).toHaveLength(1);
  });

  it("retries a 5xx with backoff, up to maxRetries", async () => {
    const bad = { status: 502, description: "Bad Gateway" };
    telegram.failNext(bad, bad, bad);
    expect(await api({ maxRetries: 2 }).sendMessage("42", "hi")).toBe(false);
    expect(telegram.calls).toHaveLength(3);
    telegram.reset();
    telegram.failNext(bad);
    expect(await api({ maxRetries: 2 }).sendMessage("42", "hi")).toBe(true);
  });

  it("returns false without retrying when the user blocked the bot, and logs why but never the token", async () => {
    telegram.failNext({ status: 403, description: "Forbidden: bot was blocked by the user" });
    expect(await api().sendMessage("42", "hi")).toBe(false);
    expect(telegram.calls).toHaveLength(1);
    const log = logLines.join("");
    expect(log).toContain("bot was blocked by the user");
    expect(log).not.toContain(TOKEN);
  });

  it("returns false when the Bot API cannot be reached", async () => {
    const closed = await unusedPort();
    expect(await api({ baseUrl: `http://127.0.0.1:${closed}` }).sendMessage("42", "hi")).toBe(false);
    expect(logLines.join("")).toContain("Bot API call failed");
    expect(logLines.join("")).not.toContain(TOKEN);
  });
});

it("setWebhook registers the URL with the secret token, for messages and pressed buttons", async () => {
  expect(await api().setWebhook("https://claw.example/channels/telegram/default", "s3cret")).toBe(true);
  expect(telegram.calls[0]).toMatchObject({
    method: "setWebhook",
    body: {
      url: "https://claw.example/channels/telegram/default",
      secret_token: "s3cret",
      allowed_updates: ["message", "callback_query"],
    },
  });
});

it("sendMessage puts buttons in one inline keyboard row, and sends none when given none", async () => {
  expect(await api().sendMessage("42", "Escalation", [{ text: "Acknowledge", data: "ack:e1" }])).toBe(true);
  expect(await api().sendMessage("42", "plain")).toBe(true);
  expect(telegram.calls[0]?.body.reply_markup).toEqual({
    inline_keyboard: [[{ text: "Acknowledge", callback_data: "ack:e1" }]],
  });
  expect(telegram.calls[1]?.body).not.toHaveProperty("reply_markup");
});

/** A port nothing listens on: bound, read, released. */
async function unusedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}
