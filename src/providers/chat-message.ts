import type { TokenUsage } from "../contracts/index.js";

/** One tool call the model asked for; `arguments` is the raw JSON text, parsed and validated by the caller. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface SystemMessage {
  role: "system";
  content: string;
}

export interface UserMessage {
  role: "user";
  content: string;
}

export interface AssistantMessage {
  role: "assistant";
  content: string;
  toolCalls: ToolCall[];
}

/** The answer to one tool call, sent back to the model; `isError` tells it the call failed. */
export interface ToolMessage {
  role: "tool";
  toolCallId: string;
  name: string;
  content: string;
  isError: boolean;
}

export type ChatMessage = SystemMessage | UserMessage | AssistantMessage | ToolMessage;

/** A tool as the model sees it: `parameters` is a JSON Schema object. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

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
