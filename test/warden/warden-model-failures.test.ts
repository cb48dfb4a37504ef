import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { type EmbeddingTestServer, startEmbeddingServer } from "../support/embedding-server.js";
import { createFakeCellBackend } from "../support/fake-cell.js";
import { reply } from "../support/model-server.js";
import { startTelegramServer, type TelegramServer, telegramIntegration } from "../support/telegram-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// A model server that drops a stream mid-reply, then one that is down (ECONNREFUSED): every way a user chats
// says so in words, with nothing of the provider's internals; the admin's audit has them.

const SECRET = "webhook-secret-failures";
let h: WardenHarness;
let bot: TelegramServer;
let embeddings: EmbeddingTestServer;
let token = "";
let call: ReturnType<typeof api>;
let admin: ReturnType<typeof api>;
let updateId = 5000;

/** What must never reach a user: the provider's address, the socket's errno, fetch's own words, a status. */
const INTERNALS =
  /https?:\/\/|127\.0\.0\.1|ECONNREFUSED|fetch failed|other side closed|terminated|HTTP \d{3}/i;

beforeAll(async () => {
  bot = await startTelegramServer();
  // Recall keeps its own server, so that stopping the model server stops the model calls alone.
  embeddings = await startEmbeddingServer();
  h = await startWardenHarness({
    backend: createFakeCellBackend(),
    configure: (config) => ({
      ...config,
      providers: {
        ...config.providers,
        embed: { base_url: embeddings.baseUrl, api_key_env: "TEST_MODEL_KEY", models: [] },
      },
      new_brains: { ...config.new_brains, embedding_provider: "embed", embedding_model: "test-embed" },
      integrations: telegramIntegration(bot, SECRET),
    }),
  });
  token = await h.addUser("dora");
  call = api(h.url, token);
  admin = api(h.url, (await h.warden.context.users.add("root-admin", { admin: true })).token);
  const pairing = (await (await call("POST", "/api/channels/pairing-code")).json()) as {
    data: { code: string };
  };
  await telegram(`/pair ${pairing.data.code}`);
  // The cell is up and has answered once before the model goes wrong.
  h.model.enqueue(reply.text("Ready."));
  const warm = (await (await call("POST", "/api/chat", { text: "hello" })).json()) as {
    data: { text: string };
  };
  expect(warm.data.text).toBe("Ready.");
}, 60_000);
afterAll(async () => {
  await h?.close();
  await bot?.close();
  await embeddings?.close();
});

/** Sends a Telegram message and returns the bot's answer to it. */
async function telegram(text: string): Promise<string> {
  const before = bot.sentMessages().length;
  const response = await fetch(`${h.url}/channels/telegram/family`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
    body: JSON.stringify({
      update_id: updateId++,
      message: {
        message_id: updateId,
        date: 1,
        text,
        chat: { id: 4242, type: "private" },
        from: { id: 4242, is_bot: false, first_name: "Dora" },
      },
    }),
  });
  expect(response.status).toBe(200);
  await bot.waitForMessages(before + 1, 60_000);
  return String(bot.sentMessages().at(-1)?.text);
}

async function overWebSocket(text: string): Promise<Record<string, unknown>> {
  const socket = new WebSocket(`${h.url.replace("http", "ws")}/api/ws`, {
    headers: { authorization: `Bearer ${token}` },
  });
  await new Promise((resolve, reject) => {
    socket.once("open", resolve);
    socket.once("error", reject);
  });
  try {
    return await new Promise((resolve) => {
      socket.on("message", (data) => {
        const event = JSON.parse(String(data)) as Record<string, unknown>;
        if (event.type === "done" || event.type === "error") resolve(event);
      });
      socket.send(JSON.stringify({ type: "chat", id: "c1", text }));
    });
  } finally {
    socket.close();
  }
}

const openai = () => new OpenAI({ baseURL: `${h.url}/v1`, apiKey: token, maxRetries: 0 });

async function openAiError(stream: boolean): Promise<{ error: unknown; text: string }> {
  let text = "";
  try {
    if (!stream) {
      await openai().chat.completions.create({
        model: "assistant",
        messages: [{ role: "user", content: "hi" }],
      });
    } else {
      const chunks = await openai().chat.completions.create({
        model: "assistant",
        messages: [{ role: "user", content: "hi" }],
        stream: true,
      });
      for await (const chunk of chunks) text += chunk.choices[0]?.delta.content ?? "";
    }
  } catch (error) {
    return { error, text };
  }
  throw new Error("the call did not fail");
}

describe("a model that fails, as each way in shows it", () => {
  it("a stream dropped mid-reply: the chat, the socket, the OpenAI SDK and Telegram say the model stopped mid-reply", async () => {
    const said = /the model stopped answering mid-reply/;
    h.model.enqueue(reply.reset("Half an ans"));
    const chat = (await (await call("POST", "/api/chat", { text: "tell me" })).json()) as {
      data: { stop_reason: string; error: string; failure: string };
    };
    expect(chat.data).toMatchObject({ stop_reason: "error", failure: "model_interrupted" });
    expect(chat.data.error).toMatch(said);
    expect(chat.data.error).not.toMatch(INTERNALS);

    h.model.enqueue(reply.reset("Half an ans"));
    const done = await overWebSocket("tell me");
    expect(done).toMatchObject({ type: "done", stopReason: "error", failure: "model_interrupted" });
    expect(String(done.error)).toMatch(said);
    expect(String(done.error)).not.toMatch(INTERNALS);

    // A cut-off answer is an error to an OpenAI client, never a finished completion.
    h.model.enqueue(reply.reset("Half an ans"));
    const whole = await openAiError(false);
    expect(whole.error).toBeInstanceOf(OpenAI.InternalServerError);
    expect(whole.error).toMatchObject({ status: 502, code: "model_interrupted" });
    expect((whole.error as Error).message).toMatch(said);
    expect((whole.error as Error).message).not.toMatch(INTERNALS);
    h.model.enqueue(reply.reset("Half an ans"));
    const streamed = await openAiError(true);
    expect(streamed.text).toBe("Half an ans");
    expect(streamed.error).toBeInstanceOf(OpenAI.APIError);
    expect((streamed.error as Error).message).toMatch(said);
    expect((streamed.error as Error).message).not.toMatch(INTERNALS);

    h.model.enqueue(reply.reset("Half an ans"));
    const answer = await telegram("tell me");
    expect(answer).toMatch(said);
    expect(answer).not.toMatch(INTERNALS);
  }, 60_000);

  it("a refused request shows the provider's reason, without an address in it", async () => {
    h.model.enqueue(
      reply.status(400, "This model's maximum context length is 8192 tokens; see https://10.1.2.3:9000/docs"),
    );
    const chat = (await (await call("POST", "/api/chat", { text: "a long one" })).json()) as {
      data: { error: string; failure: string };
    };
    expect(chat.data.failure).toBe("model_refused");
    expect(chat.data.error).toMatch(
      /^the model refused the request: This model's maximum context length is 8192/,
    );
    expect(chat.data.error).not.toMatch(INTERNALS);
    expect(chat.data.error).not.toContain("10.1.2.3");
  }, 60_000);

  it("a model server that is down: every way in says the model is unavailable, with a 503 to OpenAI clients", async () => {
    await h.model.close();
    const said = /the model is unavailable right now/;
    const chat = (await (await call("POST", "/api/chat", { text: "are you there?" })).json()) as {
      data: { error: string; failure: string };
    };
    expect(chat.data.failure).toBe("model_unavailable");
    expect(chat.data.error).toMatch(said);
    expect(chat.data.error).not.toMatch(INTERNALS);

    const done = await overWebSocket("are you there?");
    expect(done).toMatchObject({ type: "done", failure: "model_unavailable" });
    expect(String(done.error)).toMatch(said);
    expect(String(done.error)).not.toMatch(INTERNALS);

    for (const stream of [false, true]) {
      const { error } = await openAiError(stream);
      expect(error).toBeInstanceOf(OpenAI.InternalServerError);
      expect(error).toMatchObject({ status: 503, code: "model_unavailable" });
      expect((error as Error).message).toMatch(said);
      expect((error as Error).message).not.toMatch(INTERNALS);
    }

    const answer = await telegram("are you there?");
    expect(answer).toMatch(said);
    expect(answer).not.toMatch(INTERNALS);
  }, 60_000);

  it("keeps the details for the admin's audit, not for the user's own view of it", async () => {
    const entries = (await (await admin("GET", "/api/audit?action=model.failed")).json()) as {
      data: Array<{ detail: Record<string, unknown> }>;
    };
    const dora = entries.data.filter((e) => e.detail.user === "dora").map((e) => e.detail);
    const down = dora.filter((d) => d.code === "network_error");
    expect(down.length).toBeGreaterThanOrEqual(5);
    expect(String(down[0]?.message)).toContain(h.model.url);
    expect(String(down[0]?.message)).toMatch(/ECONNREFUSED|fetch failed/);
    expect(dora.filter((d) => d.code === "truncated_stream").length).toBeGreaterThanOrEqual(5);
    expect(dora.find((d) => d.code === "http_error")).toMatchObject({
      status: 400,
      detail: expect.stringContaining("https://10.1.2.3:9000/docs"),
    });
    const own = (await (await call("GET", "/api/audit?action=model.failed")).json()) as { data: unknown[] };
    expect(own.data).toEqual([]);
  });
});
