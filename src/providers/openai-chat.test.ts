import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type ModelServer, reply, startModelServer } from "../../test/support/model-server.js";
import type { ChatRequest } from "./chat-message.js";
import { createOpenAiProvider, type OpenAiProviderOptions } from "./openai-chat.js";
import type { StreamEvent } from "./stream-event.js";
import { OutputMeter } from "./token-estimate.js";

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.requests.length = 0;
});

const request: ChatRequest = { model: "test-model", messages: [{ role: "user", content: "hi" }] };

function provider(options: Partial<OpenAiProviderOptions> = {}) {
  return createOpenAiProvider({
    name: "local",
    baseUrl: server.url,
    retry: { baseDelayMs: 10, maxDelayMs: 20 },
    idleTimeoutMs: 5_000,
    ...options,
  });
}

async function collect(stream: AsyncIterable<StreamEvent>): Promise<StreamEvent[]> {
  const events: StreamEvent[] = [];
  for await (const e of stream) events.push(e);
  return events;
}

function last(events: StreamEvent[]): StreamEvent {
  const e = events.at(-1);
  if (!e) throw new Error("no events");
  return e;
}

function failure(events: StreamEvent[]) {
  const e = last(events);
  if (e.type !== "error") throw new Error(`expected an error event, got ${e.type}`);
  return e;
}

describe("streaming a text reply", () => {
  it("emits start, the deltas in order, usage, and done with the whole message", async () => {
    server.enqueue(
      reply.text("Hello there, sovereign human.", {
        chunks: 4,
        usage: { prompt_tokens: 12, completion_tokens: 7 },
      }),
    );
    const events = await collect(provider().stream(request));
    expect(events[0]).toEqual({ type: "start", model: "test-model", attempts: 1 });
    const deltas = events.flatMap((e) => (e.type === "text_delta" ? [e.delta] : []));
    expect(deltas.length).toBe(4);
    expect(deltas.join("")).toBe("Hello there, sovereign human.");
    expect(last(events)).toEqual({
      type: "done",
      finishReason: "stop",
      message: { role: "assistant", content: "Hello there, sovereign human.", toolCalls: [] },
      usage: { input_tokens: 12, output_tokens: 7 },
    });
  });

  it("reads the prompt's cached part from usage, never more than the prompt", async () => {
    server.enqueue(
      reply.text("Cached.", {
        usage: { prompt_tokens: 900, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 800 } },
      }),
    );
    expect(last(await collect(provider().stream(request)))).toMatchObject({
      usage: { input_tokens: 900, output_tokens: 3, cached_input_tokens: 800 },
    });
    server.enqueue(
      reply.text("Odd.", {
        usage: { prompt_tokens: 10, completion_tokens: 3, prompt_tokens_details: { cached_tokens: 50 } },
      }),
    );
    expect(last(await collect(provider().stream(request)))).toMatchObject({
      usage: { input_tokens: 10, output_tokens: 3, cached_input_tokens: 10 },
    });
  });

  it("sends the model, messages, tools, stream flags and the bearer key", async () => {
    server.enqueue(reply.text("ok"));
    await collect(
      provider({ apiKey: "sk-test" }).stream({
        ...request,
        tools: [{ name: "file", description: "files", parameters: { type: "object", properties: {} } }],
      }),
    );
    const sent = server.requests[0];
    expect(sent?.path).toBe("/v1/chat/completions");
    expect(sent?.headers.authorization).toBe("Bearer sk-test");
    expect(sent?.body).toMatchObject({
      model: "test-model",
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: "user", content: "hi" }],
      tools: [{ type: "function", function: { name: "file", description: "files" } }],
    });
  });
});

describe("streaming tool calls", () => {
  it("assembles parallel calls whose arguments are split and interleaved across chunks", async () => {
    server.enqueue(
      reply.toolCalls(
        [
          { name: "file", arguments: { action: "read", path: "notes/today.md" }, id: "a" },
          { name: "memory", arguments: { action: "recall", query: "what did I plan" }, id: "b" },
        ],
        { split: 5 },
      ),
    );
    const events = await collect(provider().stream(request));
    const calls = events.flatMap((e) => (e.type === "tool_call" ? [e.call] : []));
    expect(calls).toEqual([
      { id: "a", name: "file", arguments: '{"action":"read","path":"notes/today.md"}' },
      { id: "b", name: "memory", arguments: '{"action":"recall","query":"what did I plan"}' },
    ]);
    const done = last(events);
    expect(done.type === "done" && done.finishReason).toBe("tool_calls");
    expect(done.type === "done" && done.message.toolCalls).toEqual(calls);
  });

  it("sends earlier tool calls and results back in the OpenAI wire format", async () => {
    server.enqueue(reply.text("done"));
    await collect(
      provider().stream({
        model: "m",
        messages: [
          { role: "user", content: "read it" },
          { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "file", arguments: "{}" }] },
          { role: "tool", toolCallId: "c1", name: "file", content: "text", isError: false },
        ],
      }),
    );
    expect(server.chatRequests()[0]?.messages.slice(1)).toEqual([
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "file", arguments: "{}" } }],
      },
      { role: "tool", tool_call_id: "c1", name: "file", content: "text" },
    ]);
  });
});

describe("failures before streaming", () => {
  it("a missing key fails at once without a request, naming the variable", async () => {
    const events = await collect(
      provider({ requireKey: true, apiKeyEnv: "OPENROUTER_API_KEY" }).stream(request),
    );
    expect(events).toHaveLength(1);
    expect(failure(events).error.code).toBe("missing_key");
    expect(failure(events).error.message).toContain("OPENROUTER_API_KEY");
    expect(server.requests).toHaveLength(0);
  });

  it.each([
    [404, "The model `nope` does not exist"],
    [400, "nope is not a valid model ID"],
  ])("HTTP %i about the model is unknown_model", async (status, message) => {
    server.enqueue(reply.status(status, message));
    const events = await collect(provider().stream({ ...request, model: "nope" }));
    expect(failure(events).error).toMatchObject({ code: "unknown_model", status, retryable: false });
    expect(failure(events).error.message).toContain('"nope"');
  });

  it("a refused key is auth_failed and not retried", async () => {
    server.enqueue(reply.status(401, "invalid key"));
    const events = await collect(provider({ apiKey: "bad" }).stream(request));
    expect(failure(events).error).toMatchObject({ code: "auth_failed", status: 401 });
    expect(server.requests).toHaveLength(1);
  });

  it("another 4xx is an http_error with the server's message, sent once", async () => {
    server.enqueue(reply.status(422, "messages must not be empty"));
    const events = await collect(provider().stream(request));
    expect(failure(events).error).toMatchObject({ code: "http_error", status: 422, retryable: false });
    expect(failure(events).error.message).toContain("messages must not be empty");
    expect(server.requests).toHaveLength(1);
  });

  it("5xx is retried with backoff, and the stream starts on the attempt that succeeds", async () => {
    server.enqueue(reply.status(502), reply.status(503), reply.text("recovered"));
    const events = await collect(provider().stream(request));
    expect(events[0]).toEqual({ type: "start", model: "test-model", attempts: 3 });
    expect(last(events).type).toBe("done");
    expect(server.requests).toHaveLength(3);
  });

  it("429 waits as long as Retry-After says, then succeeds", async () => {
    server.enqueue(reply.status(429, "slow down", { "retry-after": "1" }), reply.text("ok"));
    const started = Date.now();
    const events = await collect(provider().stream(request));
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(last(events).type).toBe("done");
  });

  it("gives up after the last retry with the last status", async () => {
    server.enqueue(reply.status(503), reply.status(503), reply.status(503));
    const events = await collect(
      provider({ retry: { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 1 } }).stream(request),
    );
    expect(failure(events).error).toMatchObject({ code: "http_error", status: 503, retryable: true });
    expect(server.requests).toHaveLength(3);
  });

  it("an unreachable server is a network_error", async () => {
    const events = await collect(
      createOpenAiProvider({
        name: "gone",
        baseUrl: "http://127.0.0.1:9/v1",
        retry: { maxRetries: 0 },
      }).stream(request),
    );
    expect(failure(events).error.code).toBe("network_error");
  });
});

describe("failures once streaming has begun end the stream with the partial message", () => {
  it("a chunk that is not JSON is malformed_stream", async () => {
    server.enqueue(reply.malformed());
    const e = failure(await collect(provider().stream(request)));
    expect(e.error.code).toBe("malformed_stream");
    expect(e.message.content).toBe("ok");
  });

  it("a stream that ends without finishing is truncated_stream", async () => {
    server.enqueue(reply.truncated("half a thou"));
    const e = failure(await collect(provider().stream(request)));
    expect(e.error.code).toBe("truncated_stream");
    expect(e.message.content).toBe("half a thou");
  });

  it("a reset connection is truncated_stream", async () => {
    server.enqueue(reply.reset("cut"));
    const e = failure(await collect(provider().stream(request)));
    expect(e.error.code).toBe("truncated_stream");
  });

  it("an error object mid-stream is upstream_error", async () => {
    server.enqueue(reply.midStreamError("provider overloaded"));
    const e = failure(await collect(provider().stream(request)));
    expect(e.error.code).toBe("upstream_error");
    expect(e.error.message).toContain("provider overloaded");
    expect(e.message.content).toBe("partial");
  });

  it("silence longer than the idle timeout is a timeout", async () => {
    server.enqueue(reply.stall("thinking"));
    const e = failure(await collect(provider({ idleTimeoutMs: 200 }).stream(request)));
    expect(e.error.code).toBe("timeout");
    expect(e.message.content).toBe("thinking");
  });

  it("aborting mid-stream ends with aborted and the text so far", async () => {
    server.enqueue(reply.stall("first words"));
    const controller = new AbortController();
    const events: StreamEvent[] = [];
    for await (const e of provider().stream(request, { signal: controller.signal })) {
      events.push(e);
      if (e.type === "text_delta") controller.abort();
    }
    expect(failure(events).error.code).toBe("aborted");
    expect(failure(events).message.content).toBe("first words");
  });

  it("aborting while waiting to retry ends at once with aborted", async () => {
    server.enqueue(reply.status(429, "wait", { "retry-after": "30" }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const started = Date.now();
    const events = await collect(provider().stream(request, { signal: controller.signal }));
    expect(failure(events).error.code).toBe("aborted");
    expect(Date.now() - started).toBeLessThan(10_000);
  });
});

describe("a server that streams past max_tokens", () => {
  it("is cut once the reply's estimate passes the meter, ending as done/length with the text so far", async () => {
    server.enqueue(reply.overrun(20_000));
    const meter = new OutputMeter(1000);
    const events = await collect(provider().stream({ ...request, maxTokens: 1000 }, { outputMeter: meter }));
    expect(last(events)).toMatchObject({ type: "done", finishReason: "length", message: { toolCalls: [] } });
    const text = events.flatMap((e) => (e.type === "text_delta" ? [e.delta] : [])).join("");
    // One chunk (50 tokens of 4 characters, 67 by the estimate) past the limit at most.
    expect(meter.tokens).toBeGreaterThan(1000);
    expect(meter.tokens).toBeLessThanOrEqual(1000 + 67);
    expect(text.length % 200).toBe(0);
    expect(text.length).toBeGreaterThan(3000);
    // The positive control: the server was asked for 1000 tokens, had 20,000 to send, and was stopped early.
    expect(server.chatRequests().at(-1)?.max_tokens).toBe(1000);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const sent = server.requests.at(-1)?.sent;
    expect(sent?.finished).toBe(false);
    expect(sent?.contentChars).toBeLessThan(20_000 * 4 * 0.5);
  });

  it("counts streamed tool-call arguments and drops the half-streamed call", async () => {
    server.enqueue(
      reply.toolCalls([{ name: "note", arguments: { text: "x".repeat(6000) } }], { split: 60, delayMs: 1 }),
    );
    const meter = new OutputMeter(500);
    const events = await collect(provider().stream(request, { outputMeter: meter }));
    expect(events.some((e) => e.type === "tool_call")).toBe(false);
    expect(last(events)).toMatchObject({ type: "done", finishReason: "length", message: { toolCalls: [] } });
    expect(meter.tokens).toBeLessThan(600);
  });

  it("counts streamed reasoning, which is billed as output though it is not part of the answer", async () => {
    const thinking = Array.from({ length: 40 }, () => ({
      choices: [{ index: 0, delta: { reasoning: "hmm ".repeat(25) }, finish_reason: null }],
    }));
    server.enqueue(
      reply.raw([...thinking, { choices: [{ index: 0, delta: { content: "42" }, finish_reason: "stop" }] }]),
    );
    const meter = new OutputMeter(300);
    const events = await collect(provider().stream(request, { outputMeter: meter }));
    expect(last(events)).toMatchObject({ type: "done", finishReason: "length", message: { content: "" } });
    expect(meter.tokens).toBeGreaterThan(300);
    expect(meter.tokens).toBeLessThanOrEqual(300 + 34);
  });

  it("leaves a reply within its limit as it is", async () => {
    server.enqueue(reply.overrun(200));
    const meter = new OutputMeter(1000);
    const events = await collect(provider().stream(request, { outputMeter: meter }));
    expect(last(events)).toMatchObject({ type: "done", finishReason: "stop" });
    expect(meter.passed).toBe(false);
  });
});
