import type { CompactionPolicy } from "../memory/index.js";
import type {
  AssistantMessage,
  ChatMessage,
  FinishReason,
  ProviderFailure,
  StreamFunction,
  TokenUsage,
  ToolCall,
  ToolMessage,
} from "../providers/index.js";
import { zeroUsage } from "../providers/index.js";
import type { AgentContext, AgentEvent, AgentRunResult, AgentStopReason } from "./agent-event.js";
import { addUsage, ContextMeter } from "./context-meter.js";
import type { ToolBox, ToolOutcome } from "./tools/tool-box.js";

/**
 * When the context nears the model's window (memory's policy: `contextTokens - reserveTokens`), `flush` moves the
 * oldest part of the conversation into memory (seed 003 §7: summarise into memory.md, record the compaction,
 * evict) and returns what the run continues with.
 */
export interface CompactionHook extends CompactionPolicy {
  flush(
    messages: ChatMessage[],
    /** `tokens` is the measured size of the whole request, `prompt` the system message it starts with. */
    scope: { sessionId: string; signal: AbortSignal; tokens: number; prompt: ChatMessage },
  ): Promise<CompactionResult>;
}

/** The conversation to continue with; on failure it is the one passed in, untouched, with the reason. */
export interface CompactionResult {
  messages: ChatMessage[];
  compacted: boolean;
  error?: string;
}

export interface RunAgentOptions {
  stream: StreamFunction;
  tools: ToolBox;
  signal?: AbortSignal;
  emit?: (event: AgentEvent) => void;
  /** Model calls allowed in this run; a run that still wants tools after the last one ends with `max_steps`. */
  maxSteps?: number;
  compaction?: CompactionHook;
  temperature?: number;
}

export const DEFAULT_MAX_STEPS = 16;

interface StepOutcome {
  message: AssistantMessage;
  usage: TokenUsage;
  finishReason?: FinishReason;
  failure?: ProviderFailure;
}

/**
 * The cognition loop: call the model with the conversation and the tools, run the tool calls it asks for, feed
 * the results back, and repeat until it answers without tools or `maxSteps` is reached. It depends only on its
 * arguments (a stream function, a tool box, a signal), so tests drive it with the local model server and a
 * crashed run is resumed by calling it again with the stored messages.
 */
export async function runAgent(context: AgentContext, options: RunAgentOptions): Promise<AgentRunResult> {
  const emit = options.emit ?? (() => undefined);
  const signal = options.signal ?? new AbortController().signal;
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  let messages = [...context.messages];
  // What this run produced, kept apart because compaction may evict some of it from the live conversation.
  const added: ChatMessage[] = [];
  const append = (m: ChatMessage) => {
    messages.push(m);
    added.push(m);
  };
  let usage = zeroUsage();
  let contextTokens = 0;
  let toolCalls = 0;
  let compactions = 0;
  let compactionFailed = false;
  const meter = new ContextMeter();
  let stopReason: AgentStopReason = "max_steps";
  let error: ProviderFailure | undefined;
  let text = "";
  let steps = 0;

  while (steps < maxSteps) {
    if (signal.aborted) {
      stopReason = "aborted";
      break;
    }
    const step = ++steps;
    const system: ChatMessage = { role: "system", content: context.systemPrompt };
    // A flush that failed once (summariser down, disk full) is not retried on every step of the same run.
    if (options.compaction && !compactionFailed) {
      const flushed = await compactIfNeeded(options.compaction, [system, ...messages], meter, {
        sessionId: context.sessionId,
        signal,
        step,
        emit,
      });
      if (flushed?.compacted) {
        messages = flushed.messages;
        meter.reset();
        compactions++;
      } else if (flushed?.error !== undefined) compactionFailed = true;
    }
    emit({ type: "step_start", step });
    const request = [system, ...messages];
    const outcome = await callModel(options, { model: context.model, messages: request }, signal, step, emit);
    usage = addUsage(usage, outcome.usage);
    if (outcome.usage.input_tokens + outcome.usage.output_tokens > 0) {
      contextTokens = outcome.usage.input_tokens + outcome.usage.output_tokens;
    }
    meter.record(outcome.usage, request.length + 1);
    emit({ type: "usage", step, usage: outcome.usage, total: usage });

    if (outcome.failure) {
      // Half-streamed tool calls were never run and may not even be valid JSON: keep only the text.
      const partial: AssistantMessage = {
        role: "assistant",
        content: outcome.message.content,
        toolCalls: [],
      };
      if (partial.content !== "") append(partial);
      emit({ type: "step_end", step, message: partial });
      text = partial.content;
      error = outcome.failure;
      stopReason = outcome.failure.code === "aborted" ? "aborted" : "error";
      break;
    }
    append(outcome.message);
    emit({ type: "step_end", step, message: outcome.message });
    text = outcome.message.content;
    if (outcome.message.toolCalls.length === 0) {
      stopReason = outcome.finishReason === "length" ? "length" : "stop";
      break;
    }
    for (const call of outcome.message.toolCalls) {
      emit({ type: "tool_call", step, call });
      // Every call gets an answer even after an abort, so the stored conversation stays valid to resume.
      const result = signal.aborted
        ? { content: "not run: the turn was aborted", isError: true, outcome: "error" as const }
        : await runTool(options.tools, call, signal, context.sessionId);
      toolCalls++;
      emit({ type: "tool_result", step, call, result });
      const reply: ToolMessage = {
        role: "tool",
        toolCallId: call.id,
        name: call.name,
        content: result.content,
        isError: result.isError,
      };
      append(reply);
    }
  }
  if (stopReason === "max_steps" && signal.aborted) stopReason = "aborted";

  const result: AgentRunResult = {
    messages,
    newMessages: added,
    text,
    stopReason,
    steps,
    toolCalls,
    usage,
    contextTokens,
    compactions,
  };
  if (error) result.error = error;
  emit({ type: "done", result });
  return result;
}

/** Flushes through the hook when the request would cross the threshold; undefined when nothing was needed. */
async function compactIfNeeded(
  policy: CompactionHook,
  request: ChatMessage[],
  meter: ContextMeter,
  scope: { sessionId: string; signal: AbortSignal; step: number; emit: (event: AgentEvent) => void },
): Promise<CompactionResult | undefined> {
  const tokens = meter.measure(request);
  if (tokens < policy.contextTokens - policy.reserveTokens) return undefined;
  const conversation = request.slice(1);
  const flushed = await policy.flush(conversation, {
    sessionId: scope.sessionId,
    signal: scope.signal,
    prompt: request[0] as ChatMessage,
    tokens,
  });
  scope.emit({
    type: "compaction",
    step: scope.step,
    compacted: flushed.compacted,
    tokensBefore: tokens,
    messagesBefore: conversation.length,
    messagesAfter: flushed.messages.length,
    ...(flushed.error === undefined ? {} : { error: flushed.error }),
  });
  return flushed;
}

async function runTool(
  tools: ToolBox,
  call: ToolCall,
  signal: AbortSignal,
  sessionId: string,
): Promise<ToolOutcome> {
  try {
    return await tools.run(call, { signal, sessionId });
  } catch (error) {
    // The tool box turns tool failures into results itself; reaching here means the audit could not be written.
    return { content: `tool call failed: ${(error as Error).message}`, isError: true, outcome: "error" };
  }
}

async function callModel(
  options: RunAgentOptions,
  request: { model: string; messages: ChatMessage[] },
  signal: AbortSignal,
  step: number,
  emit: (event: AgentEvent) => void,
): Promise<StepOutcome> {
  const specs = options.tools.specs();
  const stream = options.stream(
    {
      ...request,
      ...(specs.length > 0 ? { tools: specs } : {}),
      ...(options.temperature === undefined ? {} : { temperature: options.temperature }),
    },
    { signal },
  );
  for await (const event of stream) {
    switch (event.type) {
      case "text_delta":
        emit({ type: "text_delta", step, delta: event.delta });
        break;
      case "done":
        return { message: event.message, usage: event.usage, finishReason: event.finishReason };
      case "error":
        return { message: event.message, usage: event.usage, failure: event.error };
      default:
        break;
    }
  }
  // A stream function that ends without done or error breaks its contract; treat it like a cut-off stream.
  return {
    message: { role: "assistant", content: "", toolCalls: [] },
    usage: zeroUsage(),
    failure: { code: "truncated_stream", message: "the stream ended without done or error", retryable: true },
  };
}
