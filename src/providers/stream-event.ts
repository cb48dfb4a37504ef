import type { z } from "zod";
import {
  PROVIDER_ERROR_CODES,
  type providerFailureSchema,
  type streamEventSchema,
} from "../contracts/index.js";
import type { ChatRequest } from "./chat-message.js";
import type { OutputMeter } from "./token-estimate.js";

// The shapes are the protocol contracts' (src/contracts/cell/protocol-model.ts), so a call proxied through the
// warden carries exactly what a direct call yields.
export { PROVIDER_ERROR_CODES };
export type ProviderErrorCode = (typeof PROVIDER_ERROR_CODES)[number];

/** Why a call failed; `retryable` says whether the same request could succeed if sent again later. */
export type ProviderFailure = z.output<typeof providerFailureSchema>;

/** `length` means the model hit its output limit; `tool_calls` that it wants tools run before answering. */
export type FinishReason = "stop" | "tool_calls" | "length";

/**
 * What a streaming call reports, in order: `start` once the server accepted the request, any number of deltas,
 * tool calls and usage, then exactly one `done` or `error`, both carrying the message as far as it got.
 */
export type StreamEvent = z.output<typeof streamEventSchema>;

export interface StreamOptions {
  signal?: AbortSignal;
  /**
   * Counts the reply as it streams; once it passes its limit the call is cut (the connection closed) and ends as
   * `done` with finish reason `length` and no tool calls (a half-streamed call may not even be valid JSON).
   */
  outputMeter?: OutputMeter;
}

/** One model call as a stream; it never throws once called, every failure is the final `error` event. */
export type StreamFunction = (request: ChatRequest, options?: StreamOptions) => AsyncIterable<StreamEvent>;

export interface Provider {
  readonly name: string;
  readonly baseUrl: string;
  stream: StreamFunction;
}
