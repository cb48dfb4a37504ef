import { InvalidInputError } from "../core/index.js";

/** A message of a live session's context, as the agent loop holds it. */
export interface ContextMessage {
  id: string;
  role: "system" | "user" | "assistant" | "tool";
  content: string;
  /** Exact count from the provider's usage report, when known; otherwise estimated. */
  tokens?: number;
}

export type TokenCounter = (message: ContextMessage) => number;

/** ~4 bytes of UTF-8 per token plus a few tokens of per-message framing: close enough to decide when to flush. */
export const estimateTokens: TokenCounter = (m) =>
  m.tokens ?? Math.ceil(Buffer.byteLength(m.content, "utf8") / 4) + 4;

export interface CompactionPolicy {
  /** The model's context window in tokens. */
  limit: number;
  /** Head-room kept free: compaction starts when usage reaches `limit - buffer`. */
  buffer: number;
  /** Most recent messages that are never summarised (default 4). */
  keepRecent?: number;
  /** Usage to get back under, as a share of `limit - buffer` (default 0.5). */
  targetShare?: number;
}

export function usageOf(messages: readonly ContextMessage[], count: TokenCounter = estimateTokens): number {
  return messages.reduce((sum, m) => sum + count(m), 0);
}

/**
 * The oldest slice worth summarising, or undefined while usage is under `limit - buffer`. The slice starts
 * after the leading system messages (the prompt is not conversation), ends before the `keepRecent` newest
 * messages, and is just long enough to bring usage to `targetShare` of the threshold.
 */
export function selectSlice(
  messages: readonly ContextMessage[],
  policy: CompactionPolicy,
  count: TokenCounter = estimateTokens,
): { start: number; end: number } | undefined {
  checkPolicy(policy);
  const threshold = policy.limit - policy.buffer;
  const usage = usageOf(messages, count);
  if (usage < threshold) return undefined;
  let start = 0;
  while (start < messages.length && messages[start]?.role === "system") start++;
  const stop = Math.max(start, messages.length - (policy.keepRecent ?? 4));
  const goal = threshold * (policy.targetShare ?? 0.5);
  let end = start;
  let remaining = usage;
  while (end < stop && remaining > goal) remaining -= count(messages[end++] as ContextMessage);
  return end > start ? { start, end } : undefined;
}

function checkPolicy(policy: CompactionPolicy): void {
  if (!Number.isInteger(policy.limit) || policy.limit <= 0) {
    throw new InvalidInputError("policy.limit", "must be a positive integer");
  }
  if (!Number.isInteger(policy.buffer) || policy.buffer < 0 || policy.buffer >= policy.limit) {
    throw new InvalidInputError("policy.buffer", "must be an integer from 0 to below limit");
  }
  const share = policy.targetShare ?? 0.5;
  if (!(share > 0 && share < 1)) throw new InvalidInputError("policy.targetShare", "must be between 0 and 1");
  const keep = policy.keepRecent ?? 4;
  if (!Number.isInteger(keep) || keep < 0)
    throw new InvalidInputError("policy.keepRecent", "must be an integer ≥ 0");
}
