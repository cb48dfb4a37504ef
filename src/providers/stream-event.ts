import type { AssistantMessage, ChatRequest, TokenUsage, ToolCall } from "./chat-message.js";

/** Why a call failed; `retryable` says whether the same request could succeed if sent again later. */
export const PROVIDER_ERROR_CODES = [
  "missing_key",
  "auth_failed",
  "unknown_model",
  "rate_limited",
  "http_error",
  "network_error",
  "malformed_stream",
  "truncated_stream",
  "upstream_error",
  "timeout",
  "aborted",
] as const;
export type ProviderErrorCode = (typeof PROVIDER_ERROR_CODES)[number];

export interface ProviderFailure {
  code: ProviderErrorCode;
  message: string;
  status?: number;
  retryable: boolean;
}

/** `length` means the model hit its output limit; `tool_calls` that it wants tools run before answering. */
export type FinishReason = "stop" | "tool_calls" | "length";

/**
 * What a streaming call reports, in order: `start` once the server accepted the request, any number of deltas,
 * tool calls and usage, then exactly one `done` or `error`, both carrying the message as far as it got.
 */
export type StreamEvent =
  | { type: "start"; model: string; attempts: number }
  | { type: "text_delta"; delta: string }
  | { type: "tool_call"; call: ToolCall }
  | { type: "usage"; usage: TokenUsage }
  | { type: "done"; message: AssistantMessage; finishReason: FinishReason; usage: TokenUsage }
  | { type: "error"; error: ProviderFailure; message: AssistantMessage; usage: TokenUsage };

export interface StreamOptions {
  signal?: AbortSignal;
}

/** One model call as a stream; it never throws once called, every failure is the final `error` event. */
export type StreamFunction = (request: ChatRequest, options?: StreamOptions) => AsyncIterable<StreamEvent>;

export interface Provider {
  readonly name: string;
  readonly baseUrl: string;
  stream: StreamFunction;
}
