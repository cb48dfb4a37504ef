import type { ChatMessage } from "../contracts/index.js";
import { InvalidInputError } from "../core/index.js";

/** When a conversation is flushed into memory (seed 003 §7), and how much of it. */
export interface CompactionPolicy {
  /** The model's context window in tokens. */
  contextTokens: number;
  /** Head room kept free for the next answer: flushing starts at `contextTokens - reserveTokens`. */
  reserveTokens: number;
  /** Most recent messages that are never summarised (default 4). */
  keepRecent?: number;
  /** Usage to get back under, as a share of the threshold (default 0.5). */
  targetShare?: number;
}

/** Tokens of chat framing around each message and each tool call (role markers, separators, the call's id). */
const MESSAGE_FRAMING = 4;
const TOOL_CALL_FRAMING = 4;
/** About four bytes of UTF-8 a token in English; counting bytes, not characters, keeps CJK from being undercounted. */
const BYTES_PER_TOKEN = 4;

/**
 * The estimated tokens of one message: what it sends (content, tool names, tool-call arguments) at four bytes a
 * token, plus framing. Only an estimate: once the model has reported usage, the loop measures with that instead.
 */
export function estimateMessageTokens(message: ChatMessage): number {
  let bytes = Buffer.byteLength(message.content, "utf8");
  let framing = MESSAGE_FRAMING;
  if (message.role === "assistant") {
    for (const call of message.toolCalls) {
      bytes += Buffer.byteLength(call.name, "utf8") + Buffer.byteLength(call.arguments, "utf8");
      framing += TOOL_CALL_FRAMING;
    }
  } else if (message.role === "tool") bytes += Buffer.byteLength(message.name, "utf8");
  return Math.ceil(bytes / BYTES_PER_TOKEN) + framing;
}

/** The estimated tokens of a whole conversation. */
export function estimateTokens(messages: readonly ChatMessage[]): number {
  let total = 0;
  for (const m of messages) total += estimateMessageTokens(m);
  return total;
}

/** The usage at which a flush starts. */
export function compactionThreshold(policy: CompactionPolicy): number {
  checkPolicy(policy);
  return policy.contextTokens - policy.reserveTokens;
}

export interface ContextSlice {
  /** First evicted message and the one after the last (the slice is `messages.slice(start, end)`). */
  start: number;
  end: number;
  /** Tokens of the whole conversation and of the slice, on the scale of `usage` when it was given. */
  usage: number;
  sliceTokens: number;
}

/**
 * The oldest slice worth summarising, or undefined while usage is under the threshold. `usage` is the context's
 * size as the model last reported it, when known; each message then counts its estimate scaled to that total,
 * so the decision agrees with the loop that measured it. The slice starts after the leading system messages (the
 * prompt is not conversation), ends before the `keepRecent` newest messages, is just long enough to bring usage
 * to `targetShare` of the threshold, and never separates an assistant's tool calls from their results (a tool
 * result without its call is rejected by OpenAI-compatible servers).
 */
export function selectSlice(
  messages: readonly ChatMessage[],
  policy: CompactionPolicy,
  usage?: number,
): ContextSlice | undefined {
  const threshold = compactionThreshold(policy);
  const estimates = messages.map(estimateMessageTokens);
  const estimated = estimates.reduce((sum, n) => sum + n, 0);
  if (usage !== undefined && (!Number.isFinite(usage) || usage < 0))
    throw new InvalidInputError("usage", "must be a number of tokens ≥ 0");
  const total = usage ?? estimated;
  if (total < threshold) return undefined;
  const scale = estimated > 0 ? total / estimated : 1;
  const tokensAt = (i: number) => (estimates[i] ?? 0) * scale;
  let start = 0;
  while (start < messages.length && messages[start]?.role === "system") start++;
  const stop = Math.max(start, messages.length - (policy.keepRecent ?? 4));
  const goal = threshold * (policy.targetShare ?? 0.5);
  let end = start;
  let remaining = total;
  while (end < stop && remaining > goal) remaining -= tokensAt(end++);
  // The kept part must not open with tool results: evict them with their call, unless that would reach into
  // the newest messages; then keep the whole exchange instead.
  let past = end;
  while (past < messages.length && messages[past]?.role === "tool") past++;
  if (past <= stop) end = past;
  else while (end > start && messages[end]?.role === "tool") end--;
  if (end <= start) return undefined;
  let sliceTokens = 0;
  for (let i = start; i < end; i++) sliceTokens += tokensAt(i);
  return { start, end, usage: total, sliceTokens: Math.round(sliceTokens) };
}

function checkPolicy(policy: CompactionPolicy): void {
  if (!Number.isInteger(policy.contextTokens) || policy.contextTokens <= 0) {
    throw new InvalidInputError("policy.contextTokens", "must be a positive integer");
  }
  if (
    !Number.isInteger(policy.reserveTokens) ||
    policy.reserveTokens < 0 ||
    policy.reserveTokens >= policy.contextTokens
  ) {
    throw new InvalidInputError("policy.reserveTokens", "must be an integer from 0 to below contextTokens");
  }
  const share = policy.targetShare ?? 0.5;
  if (!(share > 0 && share < 1)) throw new InvalidInputError("policy.targetShare", "must be between 0 and 1");
  const keep = policy.keepRecent ?? 4;
  if (!Number.isInteger(keep) || keep < 0)
    throw new InvalidInputError("policy.keepRecent", "must be an integer ≥ 0");
}
