import { z } from "zod";
import type { ChatMessage, ChatRequest, TokenUsage } from "./chat-message.js";
import type { ToolCallDelta } from "./message-accumulator.js";
import type { FinishReason } from "./stream-event.js";

/** The request body of `POST {base}/chat/completions` in the OpenAI wire format. */
export function toRequestBody(request: ChatRequest, includeUsage: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {
    model: request.model,
    messages: request.messages.map(toWireMessage),
    stream: true,
  };
  // Without this flag OpenAI-compatible servers send no usage on streams, and compaction needs the numbers.
  if (includeUsage) body.stream_options = { include_usage: true };
  if (request.tools && request.tools.length > 0) {
    body.tools = request.tools.map((t) => ({
      type: "function",
      function: { name: t.name, description: t.description, parameters: t.parameters },
    }));
  }
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.maxTokens !== undefined) body.max_tokens = request.maxTokens;
  return body;
}

function toWireMessage(message: ChatMessage): Record<string, unknown> {
  switch (message.role) {
    case "system":
    case "user":
      return { role: message.role, content: message.content };
    case "assistant":
      if (message.toolCalls.length === 0) return { role: "assistant", content: message.content };
      return {
        role: "assistant",
        // Several servers reject an empty string next to tool calls but accept null.
        content: message.content === "" ? null : message.content,
        tool_calls: message.toolCalls.map((c) => ({
          id: c.id,
          type: "function",
          function: { name: c.name, arguments: c.arguments },
        })),
      };
    case "tool":
      return { role: "tool", tool_call_id: message.toolCallId, name: message.name, content: message.content };
  }
}

const toolCallDeltaSchema = z.looseObject({
  index: z.number().int().min(0).optional(),
  id: z.string().nullish(),
  function: z.looseObject({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
});

const chunkSchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        index: z.number().optional(),
        delta: z
          .looseObject({
            content: z.string().nullish(),
            tool_calls: z.array(toolCallDeltaSchema).nullish(),
            // Thinking some servers stream beside the answer (OpenRouter, DeepSeek): billed as output, not shown.
            reasoning: z.string().nullish(),
            reasoning_content: z.string().nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: z
    .looseObject({
      prompt_tokens: z.number().nullish(),
      completion_tokens: z.number().nullish(),
      // OpenAI and OpenRouter: the cached part of the prompt; DeepSeek names it prompt_cache_hit_tokens.
      prompt_tokens_details: z.looseObject({ cached_tokens: z.number().nullish() }).nullish(),
      prompt_cache_hit_tokens: z.number().nullish(),
    })
    .nullish(),
  error: z.unknown().optional(),
});

/** What one `data:` payload of a chat completion stream says, or why it cannot be read. */
export type ChunkReading =
  | {
      ok: true;
      text: string;
      /** Streamed reasoning, counted as output but not part of the message. */
      reasoning: string;
      toolCalls: ToolCallDelta[];
      finishReason?: FinishReason;
      usage?: TokenUsage;
      error?: string;
    }
  | { ok: false; problem: string };

export function readChunk(data: string): ChunkReading {
  let raw: unknown;
  try {
    raw = JSON.parse(data);
  } catch {
    return { ok: false, problem: `not JSON: ${data.slice(0, 120)}` };
  }
  const parsed = chunkSchema.safeParse(raw);
  if (!parsed.success) return { ok: false, problem: `unexpected chunk shape: ${data.slice(0, 120)}` };
  const chunk = parsed.data;
  const out: ChunkReading & { ok: true } = { ok: true, text: "", reasoning: "", toolCalls: [] };
  if (chunk.error !== undefined && chunk.error !== null) out.error = describeError(chunk.error);
  // Only the first choice is followed: IronClaw never asks for n > 1.
  const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
  if (choice) {
    out.text = choice.delta?.content ?? "";
    out.reasoning = (choice.delta?.reasoning ?? "") + (choice.delta?.reasoning_content ?? "");
    for (const d of choice.delta?.tool_calls ?? []) {
      const delta: ToolCallDelta = {};
      if (d.index !== undefined) delta.index = d.index;
      if (d.id) delta.id = d.id;
      if (d.function?.name) delta.name = d.function.name;
      if (d.function?.arguments) delta.arguments = d.function.arguments;
      out.toolCalls.push(delta);
    }
    if (choice.finish_reason) out.finishReason = toFinishReason(choice.finish_reason);
  }
  if (chunk.usage) {
    const input = Math.max(0, Math.round(chunk.usage.prompt_tokens ?? 0));
    out.usage = {
      input_tokens: input,
      output_tokens: Math.max(0, Math.round(chunk.usage.completion_tokens ?? 0)),
    };
    const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? chunk.usage.prompt_cache_hit_tokens;
    if (typeof cached === "number" && cached > 0)
      out.usage.cached_input_tokens = Math.min(input, Math.round(cached));
  }
  return out;
}

function toFinishReason(reason: string): FinishReason {
  if (reason === "tool_calls" || reason === "function_call") return "tool_calls";
  if (reason === "length") return "length";
  return "stop";
}

function describeError(error: unknown): string {
  if (typeof error === "string") return error;
  if (typeof error === "object" && error !== null && "message" in error) {
    return String((error as { message: unknown }).message);
  }
  return JSON.stringify(error);
}
