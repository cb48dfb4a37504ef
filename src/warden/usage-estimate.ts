import type { ChatMessage, ToolSpec } from "../providers/index.js";

// Token counts the warden has to guess: a prompt before the call (for the reservation) and a reply whose stream
// ended without `usage`. Tokenizers differ per model; one token per three UTF-8 bytes over-counts English
// (about four) and code, so a reservation errs on the side of the cap. Estimated records are marked as such.
const BYTES_PER_TOKEN = 3;
// Role markers and separators every chat format adds around a message.
const PER_MESSAGE = 4;

function tokensOf(text: string): number {
  return Math.ceil(Buffer.byteLength(text, "utf8") / BYTES_PER_TOKEN);
}

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
