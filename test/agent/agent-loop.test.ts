import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { z } from "zod";
import {
  type AgentEvent,
  type CompactionHook,
  createToolBox,
  defineTool,
  MemoryAuditLog,
  ok,
  PathPolicy,
  runAgent,
} from "../../src/agent/index.js";
import { createOpenAiProvider } from "../../src/providers/index.js";
import { type ModelServer, reply, startModelServer } from "../support/model-server.js";

let server: ModelServer;
beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());
beforeEach(() => {
  server.reset();
});

const calls: Array<{ a: number; b: number }> = [];
const add = defineTool({
  name: "add",
  description: "adds two integers",
  parameters: z.strictObject({ a: z.number().int(), b: z.number().int() }),
  async execute(args) {
    calls.push(args);
    return ok(String(args.a + args.b));
  },
});
const wait = defineTool({
  name: "wait",
  description: "waits until the turn is aborted",
  parameters: z.strictObject({}),
  execute: (_args, { signal }) =>
    new Promise((resolve) =>
      signal.addEventListener("abort", () => resolve({ content: "stopped", isError: true })),
    ),
});

function setup(options: { idleTimeoutMs?: number } = {}) {
  const audit = new MemoryAuditLog();
  const tools = createToolBox({
    tools: [add, wait],
    allow: ["add", "wait"],
    agent: "tester",
    pathPolicy: new PathPolicy(["/tmp"]),
    audit,
  });
  const provider = createOpenAiProvider({
    name: "local",
    baseUrl: server.url,
    retry: { maxRetries: 0 },
    idleTimeoutMs: options.idleTimeoutMs ?? 5_000,
  });
  return { audit, tools, stream: provider.stream };
}

const context = (text = "what is 2 + 3?") => ({
  sessionId: "s1",
  model: "test-model",
  systemPrompt: "You add numbers.",
  messages: [{ role: "user" as const, content: text }],
});

function lastTool(index: number) {
  return server.chatRequests()[index]?.messages.at(-1);
}

describe("the loop", () => {
  it("sends invalid arguments back to the model as an error it can correct", async () => {
    calls.length = 0;
    server.enqueue(
      reply.toolCalls([{ name: "add", arguments: { a: 2, b: "three" } }]),
      reply.toolCalls([{ name: "add", arguments: { a: 2, b: 3 } }]),
      reply.text("5"),
    );
    const { tools, stream } = setup();
    const result = await runAgent(context(), { stream, tools });
    expect(result).toMatchObject({ text: "5", stopReason: "stop", steps: 3, toolCalls: 2 });
    expect(lastTool(1)).toMatchObject({
      role: "tool",
      content: "invalid arguments for add:\n$.b: Invalid input: expected number, received string",
    });
    expect(lastTool(2)).toMatchObject({ role: "tool", content: "5" });
    expect(calls).toEqual([{ a: 2, b: 3 }]);
  });

  it("runs parallel calls in order and answers each by its id", async () => {
    server.enqueue(
      reply.toolCalls(
        [
          { name: "add", arguments: { a: 1, b: 1 }, id: "first" },
          { name: "add", arguments: { a: 2, b: 2 }, id: "second" },
        ],
        { split: 3 },
      ),
      reply.text("2 and 4"),
    );
    const { tools, stream } = setup();
    await runAgent(context(), { stream, tools });
    expect(server.chatRequests()[1]?.messages.slice(-2)).toEqual([
      { role: "tool", tool_call_id: "first", name: "add", content: "2" },
      { role: "tool", tool_call_id: "second", name: "add", content: "4" },
    ]);
  });

  it("stops after maxSteps when the model keeps calling tools", async () => {
    server.enqueue(
      reply.toolCalls([{ name: "add", arguments: { a: 1, b: 1 } }]),
      reply.toolCalls([{ name: "add", arguments: { a: 1, b: 1 } }]),
      reply.text("never asked for"),
    );
    const { tools, stream } = setup();
    const result = await runAgent(context(), { stream, tools, maxSteps: 2 });
    expect(result).toMatchObject({ stopReason: "max_steps", steps: 2, toolCalls: 2 });
    expect(server.chatRequests()).toHaveLength(2);
    expect(result.messages.at(-1)).toMatchObject({ role: "tool" });
    expect(server.pending()).toBe(1);
  });

  it("sums token usage over every model call", async () => {
    server.enqueue(
      reply.toolCalls([{ name: "add", arguments: { a: 1, b: 2 } }], {
        usage: { prompt_tokens: 100, completion_tokens: 10 },
      }),
      reply.text("3", { usage: { prompt_tokens: 130, completion_tokens: 2 } }),
    );
    const events: AgentEvent[] = [];
    const { tools, stream } = setup();
    const result = await runAgent(context(), { stream, tools, emit: (e) => events.push(e) });
    expect(result.usage).toEqual({ input_tokens: 230, output_tokens: 12 });
    expect(result.contextTokens).toBe(132);
    expect(events.filter((e) => e.type === "usage").length).toBe(2);
  });

  it("ends with error and keeps the partial text when the provider fails mid-stream", async () => {
    server.enqueue(reply.truncated("The answer is"));
    const { tools, stream } = setup();
    const result = await runAgent(context(), { stream, tools });
    expect(result.stopReason).toBe("error");
    expect(result.error?.code).toBe("truncated_stream");
    expect(result.text).toBe("The answer is");
    expect(result.newMessages).toEqual([{ role: "assistant", content: "The answer is", toolCalls: [] }]);
  });

  it("is aborted mid-stream by its signal", async () => {
    server.enqueue(reply.stall("Thinking about"));
    const controller = new AbortController();
    const { tools, stream } = setup();
    const result = await runAgent(context(), {
      stream,
      tools,
      signal: controller.signal,
      emit: (e) => {
        if (e.type === "text_delta") controller.abort();
      },
    });
    expect(result.stopReason).toBe("aborted");
    expect(result.text).toBe("Thinking about");
  });

  it("is aborted while a tool runs, answers every pending call, and calls the model no more", async () => {
    server.enqueue(
      reply.toolCalls([
        { name: "wait", arguments: {}, id: "w" },
        { name: "add", arguments: { a: 1, b: 1 }, id: "a" },
      ]),
    );
    const controller = new AbortController();
    const { tools, stream } = setup();
    const run = runAgent(context(), {
      stream,
      tools,
      signal: controller.signal,
      emit: (e) => {
        if (e.type === "tool_call" && e.call.name === "wait") setTimeout(() => controller.abort(), 50);
      },
    });
    const result = await run;
    expect(result.stopReason).toBe("aborted");
    expect(server.chatRequests()).toHaveLength(1);
    expect(result.messages.slice(-2)).toEqual([
      { role: "tool", toolCallId: "w", name: "wait", content: "stopped", isError: true },
      { role: "tool", toolCallId: "a", name: "add", content: "not run: the turn was aborted", isError: true },
    ]);
  });

  it("asks the compaction hook to flush once the context nears the limit", async () => {
    server.enqueue(
      reply.toolCalls([{ name: "add", arguments: { a: 1, b: 1 } }], {
        usage: { prompt_tokens: 900, completion_tokens: 50 },
      }),
      reply.text("2"),
    );
    const flushed: number[] = [];
    const compaction: CompactionHook = {
      contextTokens: 1000,
      reserveTokens: 100,
      async flush(messages, { tokens }) {
        flushed.push(tokens);
        return { messages: [{ role: "system", content: "summary" }, ...messages.slice(-2)], compacted: true };
      },
    };
    const { tools, stream } = setup();
    const result = await runAgent(context(), { stream, tools, compaction });
    expect(flushed).toHaveLength(1);
    expect(flushed[0]).toBeGreaterThanOrEqual(950);
    expect(result.compactions).toBe(1);
    expect(server.chatRequests()[1]?.messages.map((m) => m.role)).toEqual([
      "system",
      "system",
      "assistant",
      "tool",
    ]);
  });

  it("keeps the whole conversation and stops trying when a flush fails", async () => {
    server.enqueue(
      reply.toolCalls([{ name: "add", arguments: { a: 1, b: 1 } }], {
        usage: { prompt_tokens: 950, completion_tokens: 10 },
      }),
      reply.text("2", { usage: { prompt_tokens: 990, completion_tokens: 1 } }),
    );
    let attempts = 0;
    const events: AgentEvent[] = [];
    const compaction: CompactionHook = {
      contextTokens: 100,
      reserveTokens: 10,
      async flush(messages) {
        attempts++;
        return { messages, compacted: false, error: "summarise: model unavailable" };
      },
    };
    const { tools, stream } = setup();
    const result = await runAgent(context(), { stream, tools, compaction, emit: (e) => events.push(e) });
    expect(result).toMatchObject({ stopReason: "stop", compactions: 0 });
    expect(attempts).toBe(1);
    expect(events.find((e) => e.type === "compaction")).toMatchObject({
      compacted: false,
      error: "summarise: model unavailable",
    });
  });
});
