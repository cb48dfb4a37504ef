import { ChatCall } from "./chat-call.js";
import type { ChatRequest } from "./chat-message.js";
import { causeText, classifyNetworkFailure, httpFailure } from "./http-failure.js";
import type { ToolCallDelta } from "./message-accumulator.js";
import {
  type AttemptResult,
  DEFAULT_RETRY_POLICY,
  parseRetryAfterMs,
  type RetryPolicy,
  withRetries,
} from "./retry-policy.js";
import { SseParser } from "./sse-parser.js";
import type { FinishReason, Provider, StreamEvent, StreamOptions } from "./stream-event.js";
import type { OutputMeter } from "./token-estimate.js";
import { readChunk, toRequestBody } from "./wire-format.js";

export interface OpenAiProviderOptions {
  name: string;
  /** API root such as `https://openrouter.ai/api/v1` or `http://127.0.0.1:11434/v1`. */
  baseUrl: string;
  apiKey?: string;
  /** Hosted APIs need a key; local servers (Ollama, llama.cpp) do not. Missing + required fails before any request. */
  requireKey?: boolean;
  /** Where the key was expected, for the missing-key message. */
  apiKeyEnv?: string;
  retry?: Partial<RetryPolicy>;
  /** Longest silence allowed while waiting for headers or the next bytes of the stream. */
  idleTimeoutMs?: number;
  headers?: Record<string, string>;
  /** Ask for `stream_options.include_usage`; turn off for servers that reject it. */
  includeUsage?: boolean;
  fetch?: typeof fetch;
}

// Reasoning models can think for a long time before the first token; OpenRouter sends keep-alive comments.
const DEFAULT_IDLE_TIMEOUT_MS = 120_000;

/** A provider for any server that speaks OpenAI-compatible chat completions with SSE streaming. */
export function createOpenAiProvider(options: OpenAiProviderOptions): Provider {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  return {
    name: options.name,
    baseUrl,
    stream: (request, streamOptions) => streamChat({ ...options, baseUrl }, request, streamOptions ?? {}),
  };
}

async function* streamChat(
  options: OpenAiProviderOptions,
  request: ChatRequest,
  { signal, outputMeter }: StreamOptions,
): AsyncGenerator<StreamEvent> {
  const call = new ChatCall(options.name, request, options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS, signal);
  try {
    if (options.requireKey && !options.apiKey) {
      const where = options.apiKeyEnv
        ? `set the environment variable ${options.apiKeyEnv}`
        : "configure an API key";
      yield call.fail("missing_key", `provider ${options.name} needs an API key: ${where}`);
      return;
    }
    if (signal?.aborted) {
      yield call.fail("aborted", "the call was aborted before it started");
      return;
    }
    const opened = yield* connect(call, options);
    if (!opened) return;
    yield { type: "start", model: request.model, attempts: opened.attempts };
    yield* readStream(call, opened.response, outputMeter);
  } catch (cause) {
    // Only a bug of ours lands here; it still ends the stream as data rather than escaping the caller's loop.
    yield call.stopped() ?? call.fail("network_error", `unexpected failure: ${causeText(cause)}`);
  } finally {
    call.dispose();
  }
}

/**
 * Sends the request, retrying 429, 408, 5xx and network failures with backoff (Retry-After first) while
 * nothing has streamed yet. Returns the accepted response, or undefined after yielding the final error.
 */
async function* connect(
  call: ChatCall,
  options: OpenAiProviderOptions,
): AsyncGenerator<StreamEvent, { response: Response; attempts: number } | undefined> {
  const policy = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  let result: Awaited<ReturnType<typeof withRetries<Response, StreamEvent>>>;
  try {
    result = await withRetries(policy, () => send(call, options), {
      signal: call.controller.signal,
      // Our own waits (retry backoff) are not the server's silence.
      beforeWait: () => call.pauseIdle(),
    });
  } catch {
    // Only a wait between attempts rejects, and only when the call was stopped.
    yield call.stopped() ?? call.fail("aborted", "the call was aborted");
    return undefined;
  }
  if (!result.ok) {
    yield result.failure;
    return undefined;
  }
  return { response: result.value, attempts: result.attempts };
}

/** One attempt: the accepted response, or the `error` event it would end with and whether to try again. */
async function send(
  call: ChatCall,
  options: OpenAiProviderOptions,
): Promise<AttemptResult<Response, StreamEvent>> {
  call.armIdle();
  try {
    const response = await (options.fetch ?? fetch)(`${options.baseUrl}/chat/completions`, {
      method: "POST",
      headers: requestHeaders(options),
      body: JSON.stringify(toRequestBody(call.request, options.includeUsage ?? true)),
      signal: call.controller.signal,
    });
    if (response.ok) return { ok: true, value: response };
    const body = await response.text();
    const f = httpFailure(response.status, body, call.request.model, options.name);
    const failure = call.fail(f.code, f.message, {
      status: response.status,
      retryable: f.retryable,
      ...(f.detail === undefined ? {} : { detail: f.detail }),
    });
    const retryAfterMs = parseRetryAfterMs(response.headers.get("retry-after"));
    return {
      ok: false,
      failure,
      retryable: f.retryable,
      ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
    };
  } catch (cause) {
    const why = call.stopped();
    if (why) return { ok: false, failure: why, retryable: false };
    const { retryable } = classifyNetworkFailure(cause);
    const failure = call.fail("network_error", `cannot reach ${options.baseUrl}: ${causeText(cause)}`, {
      retryable,
    });
    return { ok: false, failure, retryable };
  }
}

/** Reads the SSE body into deltas, tool calls and usage, ending with `done` or the reason it could not. */
async function* readStream(
  call: ChatCall,
  response: Response,
  meter: OutputMeter | undefined,
): AsyncGenerator<StreamEvent> {
  const type = response.headers.get("content-type") ?? "";
  if (!type.includes("text/event-stream")) {
    yield call.fail(
      "malformed_stream",
      `${call.provider} answered ${type || "no content type"}, not an event stream`,
    );
    return;
  }
  if (!response.body) {
    yield call.fail("truncated_stream", `${call.provider} sent an empty body`);
    return;
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const parser = new SseParser();
  let finishReason: FinishReason | undefined;
  let sawDone = false;
  for (;;) {
    call.armIdle();
    let chunk: Awaited<ReturnType<typeof reader.read>>;
    try {
      chunk = await reader.read();
    } catch (cause) {
      yield call.stopped() ??
        call.fail("truncated_stream", `the stream broke off: ${causeText(cause)}`, { retryable: true });
      return;
    }
    const payloads = chunk.done ? parser.end() : parser.push(decoder.decode(chunk.value, { stream: true }));
    for (const data of payloads) {
      if (data.trim() === "[DONE]") {
        sawDone = true;
        continue;
      }
      const reading = readChunk(data);
      if (!reading.ok) {
        yield call.fail("malformed_stream", `${call.provider} sent an unreadable chunk: ${reading.problem}`);
        return;
      }
      if (reading.error !== undefined) {
        yield call.fail("upstream_error", `${call.provider} reported an error mid-stream: ${reading.error}`, {
          detail: reading.error,
        });
        return;
      }
      if (reading.text !== "") {
        call.acc.appendText(reading.text);
        yield { type: "text_delta", delta: reading.text };
      }
      for (const delta of reading.toolCalls) call.acc.appendToolCall(delta);
      if (meter && countOutput(meter, reading)) {
        // Past what the call may cost: this chunk is the last one read, whatever the server still sends.
        call.controller.abort();
        yield cutShort(call);
        return;
      }
      if (reading.finishReason) finishReason = reading.finishReason;
      if (reading.usage) {
        call.usage = reading.usage;
        yield { type: "usage", usage: reading.usage };
      }
    }
    if (chunk.done) break;
  }
  // A finish_reason without [DONE] is complete enough (some servers skip the sentinel); neither means cut off.
  if (!sawDone && finishReason === undefined) {
    yield call.fail("truncated_stream", `${call.provider} ended the stream before it finished`, {
      retryable: true,
    });
    return;
  }
  const message = call.acc.snapshot();
  for (const toolCall of message.toolCalls) yield { type: "tool_call", call: toolCall };
  const reason = finishReason ?? (message.toolCalls.length > 0 ? "tool_calls" : "stop");
  yield { type: "done", message, finishReason: reason, usage: call.usage };
}

/** Adds a chunk's output to the meter; true once the reply has passed its limit. */
function countOutput(
  meter: OutputMeter,
  reading: { text: string; reasoning: string; toolCalls: ToolCallDelta[] },
) {
  let text = reading.text + reading.reasoning;
  for (const delta of reading.toolCalls) text += (delta.name ?? "") + (delta.arguments ?? "");
  return meter.add(text);
}

/** The end of a reply cut at its output limit: its text as far as it got, and none of its half-streamed tool calls. */
function cutShort(call: ChatCall): StreamEvent {
  const { content } = call.acc.snapshot();
  return {
    type: "done",
    message: { role: "assistant", content, toolCalls: [] },
    finishReason: "length",
    usage: call.usage,
  };
}

function requestHeaders(options: OpenAiProviderOptions): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "text/event-stream",
    ...options.headers,
  };
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`;
  return headers;
}
