import type { z } from "zod";
import type { ChatMessage, TokenUsage, toolCallSchema, toolSpecSchema } from "../contracts/index.js";

// The message shapes are the protocol contracts' (src/contracts/cell/protocol-model.ts): the model proxy sends
// them over the cell channel as they are.

/** One tool call the model asked for; `arguments` is the raw JSON text, parsed and validated by the caller. */
export type ToolCall = z.output<typeof toolCallSchema>;

export type { ChatMessage };
export type SystemMessage = Extract<ChatMessage, { role: "system" }>;
/** What the user said, as the model sees it; not the protocol's UserMessage frame that carries it to a cell. */
export type UserChatMessage = Extract<ChatMessage, { role: "user" }>;
export type AssistantMessage = Extract<ChatMessage, { role: "assistant" }>;
/** The answer to one tool call, sent back to the model; `isError` tells it the call failed. */
export type ToolMessage = Extract<ChatMessage, { role: "tool" }>;

/** A tool as the model sees it: `parameters` is a JSON Schema object. */
export type ToolSpec = z.output<typeof toolSpecSchema>;

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools?: ToolSpec[];
  temperature?: number;
  maxTokens?: number;
}

export type { TokenUsage };

export function emptyAssistantMessage(): AssistantMessage {
  return { role: "assistant", content: "", toolCalls: [] };
}

export function zeroUsage(): TokenUsage {
  return { input_tokens: 0, output_tokens: 0 };
}
