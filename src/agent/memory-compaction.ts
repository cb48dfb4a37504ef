import type { BrainMemory, CompactionPolicy, Summariser } from "../memory/index.js";
import type { ChatMessage, StreamFunction } from "../providers/index.js";
import type { CompactionHook } from "./agent-loop.js";

export interface MemoryCompactionOptions {
  contextTokens: number;
  reserveTokens: number;
  summarise: Summariser;
  /** Newest messages never summarised (memory's default is 4). */
  keepRecent?: number;
}

/**
 * The loop's compaction hook, backed by memory's pre-compaction flush. Memory owns the policy, the estimate and
 * the choice of slice (which keeps an assistant's tool calls with their results); the loop passes the size it
 * measured, so both decide on the same number.
 */
export function createMemoryCompaction(
  memory: Pick<BrainMemory, "compact">,
  options: MemoryCompactionOptions,
): CompactionHook {
  const policy: CompactionPolicy = {
    contextTokens: options.contextTokens,
    reserveTokens: options.reserveTokens,
    ...(options.keepRecent === undefined ? {} : { keepRecent: options.keepRecent }),
  };
  return {
    ...policy,
    async flush(messages, { sessionId, signal, tokens, prompt }) {
      // Memory sees the request as the model was sent it, prompt included, since `tokens` measured all of it;
      // a leading system message is never evicted, so the prompt comes back first and is dropped again.
      const outcome = await memory.compact({
        sessionId,
        messages: [prompt, ...messages],
        policy,
        usage: tokens,
        summarise: options.summarise,
        signal,
      });
      if (outcome.status === "failed") {
        return { messages, compacted: false, error: `${outcome.stage}: ${outcome.error}` };
      }
      if (outcome.status === "not-needed") return { messages, compacted: false };
      return { messages: outcome.messages.slice(1), compacted: true };
    },
  };
}

/** A summariser that asks the agent's own model for a summary of the evicted slice. */
export function createModelSummariser(stream: StreamFunction, model: string): Summariser {
  return async (slice, signal) => {
    const transcript = slice.map((m) => `${m.role}: ${render(m)}`).join("\n\n");
    const request = {
      model,
      messages: [
        {
          role: "system" as const,
          content:
            "Summarise this part of a conversation for long-term memory: the facts learned, decisions made, " +
            "open tasks and anything the user asked to keep. Plain markdown bullets, no preamble.",
        },
        { role: "user" as const, content: transcript },
      ],
    };
    for await (const event of stream(request, signal ? { signal } : {})) {
      if (event.type === "done") return event.message.content;
      if (event.type === "error") throw new Error(event.error.message);
    }
    throw new Error("the summary stream ended without an answer");
  };
}

/** A message as the summariser reads it: tool calls and results spelled out, since they carry facts too. */
function render(m: ChatMessage): string {
  switch (m.role) {
    case "assistant": {
      const calls = m.toolCalls.map((c) => `[called ${c.name} ${c.arguments}]`);
      return [m.content, ...calls].filter((s) => s !== "").join("\n");
    }
    case "tool":
      return `[${m.name} ${m.isError ? "failed" : "returned"}] ${m.content}`;
    default:
      return m.content;
  }
}
