import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { createFakeCellBackend } from "../support/fake-cell.js";
import { reply } from "../support/model-server.js";
import { startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

let h: WardenHarness;
let token = "";

beforeAll(async () => {
  h = await startWardenHarness({ backend: createFakeCellBackend() });
  token = await h.addUser("bob");
}, 60_000);
afterAll(async () => {
  await h?.close();
});

describe("the OpenAI-compatible endpoint, driven by the official openai SDK", () => {
  const client = () => new OpenAI({ baseURL: `${h.url}/v1`, apiKey: token, maxRetries: 0 });

  it("lists the user's agent profiles as models", async () => {
    const models = await client().models.list();
    expect(models.data.map((m) => m.id)).toEqual(["assistant"]);
  }, 60_000);

  it("answers a completion with the agent's reply and usage", async () => {
    h.model.enqueue(reply.text("Forty-two.", { usage: { prompt_tokens: 11, completion_tokens: 3 } }));
    const completion = await client().chat.completions.create({
      model: "assistant",
      messages: [
        { role: "user", content: "What is six times seven?" },
        { role: "assistant", content: "Let me think." },
        { role: "user", content: "Well?" },
      ],
    });
    expect(completion.choices[0]?.message.content).toBe("Forty-two.");
    expect(completion.choices[0]?.finish_reason).toBe("stop");
    expect(completion.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 3, total_tokens: 14 });
    // The client's earlier messages reached the model as the conversation so far.
    const said = (h.model.chatRequests().at(-1)?.messages ?? []).map((m) => m.content);
    expect(said).toContain("What is six times seven?");
    expect(said).toContain("Let me think.");
    expect(said.at(-1)).toBe("Well?");
  }, 60_000);

  it("streams a completion chunk by chunk", async () => {
    h.model.enqueue(reply.text("one two three", { chunks: 3 }));
    const stream = await client().chat.completions.create({
      model: "assistant",
      messages: [{ role: "user", content: "count" }],
      stream: true,
      stream_options: { include_usage: true },
    });
    const pieces: string[] = [];
    let finish: string | null | undefined;
    let usage: unknown;
    for await (const chunk of stream) {
      const choice = chunk.choices[0];
      if (choice?.delta.content) pieces.push(choice.delta.content);
      if (choice?.finish_reason) finish = choice.finish_reason;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(pieces.join("")).toBe("one two three");
    expect(pieces.length).toBeGreaterThan(1);
    expect(finish).toBe("stop");
    expect(usage).toMatchObject({ total_tokens: expect.any(Number) });
  }, 60_000);

  it("raises the SDK's own errors: unknown model 404, wrong key 401, no user message 400", async () => {
    await expect(
      client().chat.completions.create({ model: "gpt-nope", messages: [{ role: "user", content: "hi" }] }),
    ).rejects.toMatchObject({ status: 404, code: "model_not_found" });
    const stranger = new OpenAI({ baseURL: `${h.url}/v1`, apiKey: "sk-wrong", maxRetries: 0 });
    await expect(stranger.models.list()).rejects.toMatchObject({ status: 401 });
    await expect(
      client().chat.completions.create({
        model: "assistant",
        messages: [{ role: "system", content: "be brief" }],
      }),
    ).rejects.toMatchObject({ status: 400 });
  }, 60_000);
});

/** Signs in through a one-time login link, as the printed admin link does, and returns the session cookie. */
async function signIn(userId: string): Promise<string> {
  const link = h.warden.loginLink(userId);
  const response = await fetch(link, { redirect: "manual" });
  expect(response.status).toBe(303);
  const cookie = response.headers.get("set-cookie") ?? "";
  expect(cookie).toMatch(/HttpOnly/);
  expect(cookie).toMatch(/SameSite=Strict/);
  return cookie.split(";")[0] ?? "";
}

function connect(headers: Record<string, string>, origin?: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${h.url.replace("http", "ws")}/api/ws`, {
      headers,
      ...(origin ? { origin } : {}),
    });
    socket.once("open", () => resolve(socket));
    socket.once("unexpected-response", (_request, response) =>
      reject(new Error(`HTTP ${response.statusCode}`)),
    );
    socket.once("error", reject);
  });
}

describe("the browser's ways in", () => {
  it("a login link works once and gives an HttpOnly SameSite cookie session", async () => {
    const link = h.warden.loginLink("bob");
    const first = await fetch(link, { redirect: "manual" });
    expect(first.status).toBe(303);
    const again = await fetch(link, { redirect: "manual" });
    expect(again.status).toBe(401);
  });

  it("chats over the WebSocket from the UI's origin, streaming deltas and the final answer", async () => {
    const cookie = await signIn("bob");
    const socket = await connect({ cookie }, h.url);
    h.model.enqueue(reply.text("Hello over the socket.", { chunks: 4 }));
    const events: Array<Record<string, unknown>> = [];
    await new Promise<void>((resolve) => {
      socket.on("message", (data) => {
        const event = JSON.parse(String(data)) as Record<string, unknown>;
        events.push(event);
        if (event.type === "done") resolve();
      });
      socket.send(JSON.stringify({ type: "chat", id: "c1", text: "hello" }));
    });
    socket.close();
    expect(events[0]).toMatchObject({ type: "session", id: "c1" });
    expect(
      events
        .filter((e) => e.type === "delta")
        .map((e) => e.text)
        .join(""),
    ).toBe("Hello over the socket.");
    expect(events.at(-1)).toMatchObject({ type: "done", id: "c1", text: "Hello over the socket." });
  }, 60_000);

  it("refuses a WebSocket from a foreign origin even with the user's cookie, and one with no credentials", async () => {
    const cookie = await signIn("bob");
    await expect(connect({ cookie }, "https://evil.example")).rejects.toThrow(/HTTP 403/);
    await expect(connect({}, h.url)).rejects.toThrow(/HTTP 401/);
    const audit = h.warden.context.audit.list({ action: "ws.refused_origin" });
    expect(audit[0]?.detail).toMatchObject({ origin: "https://evil.example" });
  });

  it("answers a bad WebSocket message with an error naming the field and keeps the socket open", async () => {
    const socket = await connect({ authorization: `Bearer ${token}` });
    const answers: Array<Record<string, unknown>> = [];
    await new Promise<void>((resolve) => {
      socket.on("message", (data) => {
        answers.push(JSON.parse(String(data)) as Record<string, unknown>);
        if (answers.length === 3) resolve();
      });
      socket.send("not json");
      socket.send(JSON.stringify({ type: "chat", id: "x", text: "" }));
      socket.send(JSON.stringify({ type: "ping" }));
    });
    socket.close();
    expect(answers[0]).toMatchObject({ type: "error", code: "bad_request" });
    expect(answers[1]).toMatchObject({ type: "error", code: "validation_failed" });
    expect(String(answers[1]?.message)).toMatch(/text/);
    expect(answers[2]).toEqual({ type: "pong" });
  });

  it("refuses a cookie-signed write from a foreign origin (403) and accepts it from the UI's", async () => {
    const cookie = await signIn("bob");
    const foreign = await fetch(`${h.url}/api/sessions`, {
      method: "POST",
      headers: { cookie, origin: "https://evil.example", "content-type": "application/json" },
      body: "{}",
    });
    expect(foreign.status).toBe(403);
    const own = await fetch(`${h.url}/api/sessions`, {
      method: "POST",
      headers: { cookie, origin: h.url, "content-type": "application/json" },
      body: "{}",
    });
    expect(own.status).toBe(201);
  });

  it("rate-limits login attempts per client", async () => {
    let last = 0;
    for (let i = 0; i < 12; i++) {
      const response = await fetch(`${h.url}/api/auth/login`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ token: "ick_wrong" }),
      });
      last = response.status;
      if (last === 429) {
        expect(Number(response.headers.get("retry-after"))).toBeGreaterThan(0);
        break;
      }
      expect(last).toBe(401);
    }
    expect(last).toBe(429);
  });
});
