import { type ChatMessage, type ToolSpec, estimateTextTokens as tokensOf } from "../../providers/index.js";

// The prompt and reply sides of the provider layer's token estimate (src/providers/token-estimate.ts), which
// also counts a streaming reply against its reservation. Estimated records are marked as such.
// Role markers and separators every chat format adds around a message.
const PER_MESSAGE = 4;

/** The prompt of a call, messages and tool schemas, in tokens (an upper-leaning estimate). */
export function estimatePromptTokens(
  messages: readonly ChatMessage[],
  tools: readonly ToolSpec[] = [],
): number {
  let tokens = 0;
  for (const message of messages) {
    tokens += PER_MESSAGE + tokensOf(message.content);
    if (message.role === "assistant")
      for (const call of message.toolCalls) tokens += tokensOf(call.name) + tokensOf(call.arguments);
    if (message.role === "tool") tokens += tokensOf(message.name);
  }
  for (const tool of tools) tokens += tokensOf(JSON.stringify(tool));
  return tokens;
}

/** A reply as far as it got (text and tool calls), in tokens. */
export function estimateReplyTokens(reply: {
  content: string;
  toolCalls: ReadonlyArray<{ name: string; arguments: string }>;
}): number {
  let tokens = tokensOf(reply.content);
  for (const call of reply.toolCalls) tokens += tokensOf(call.name) + tokensOf(call.arguments);
  return tokens;
}
