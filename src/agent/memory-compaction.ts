import { newId } from "../core/index.js";
import type { BrainMemory, ContextMessage, Summariser } from "../memory/index.js";
import type { ChatMessage, StreamFunction } from "../providers/index.js";
import type { CompactionPolicy } from "./agent-loop.js";
import { estimateTokens } from "./token-budget.js";

export interface MemoryCompactionOptions {
  contextTokens: number;
  reserveTokens: number;
  summarise: Summariser;
  /** Newest messages never summarised (memory's default is 4). */
  keepRecent?: number;
}

/**
 * The loop's compaction hook, backed by memory's pre-compaction flush. An assistant message that called tools
 * and the tool results answering it travel as one unit: a slice boundary between them would leave tool results
 * without their call, which OpenAI-compatible servers reject.
 */
export function createMemoryCompaction(
  memory: Pick<BrainMemory, "compact">,
  options: MemoryCompactionOptions,
): CompactionPolicy {
  const ids = new WeakMap<ChatMessage, string>();
  const idOf = (m: ChatMessage) => {
    let id = ids.get(m);
    if (id === undefined) {
      id = newId();
      ids.set(m, id);
    }
    return id;
  };
  return {
    contextTokens: options.contextTokens,
    reserveTokens: options.reserveTokens,
    async flush(messages, { sessionId, signal, tokens }) {
      const groups = groupToolExchanges(messages);
      const units: ContextMessage[] = groups.map((g) => ({
        id: idOf(g[0] as ChatMessage),
        role: (g[0] as ChatMessage).role,
        content: g.map(render).join("\n"),
      }));
      const byId = new Map(units.map((u, i) => [u.id, groups[i] as ChatMessage[]]));
      // Memory estimates by bytes; scale its counts so its usage matches what the model reported to the loop.
      const estimated = groups.reduce((n, g) => n + estimateTokens(g), 0) || 1;
      const scale = Math.max(1, tokens / estimated);
      const outcome = await memory.compact({
        sessionId,
        messages: units,
        policy: {
          limit: options.contextTokens,
          buffer: options.reserveTokens,
          ...(options.keepRecent === undefined ? {} : { keepRecent: options.keepRecent }),
        },
        summarise: options.summarise,
        countTokens: (m) => Math.ceil(estimateTokens([{ role: "user", content: m.content }]) * scale),
        signal,
      });
      if (outcome.status === "failed") {
        return { messages, compacted: false, error: `${outcome.stage}: ${outcome.error}` };
      }
      if (outcome.status === "not-needed") return { messages, compacted: false };
      const out: ChatMessage[] = [];
      for (const unit of outcome.messages) {
        const group = byId.get(unit.id);
        if (group) out.push(...group);
        else out.push({ role: "system", content: unit.content });
      }
      return { messages: out, compacted: true };
    },
  };
}

/** A summariser that asks the agent's own model for a summary of the evicted slice. */
export function createModelSummariser(stream: StreamFunction, model: string): Summariser {
  return async (slice, signal) => {
    const transcript = slice.map((m) => `${m.role}: ${m.content}`).join("\n\n");
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

function groupToolExchanges(messages: readonly ChatMessage[]): ChatMessage[][] {
  const groups: ChatMessage[][] = [];
  for (const m of messages) {
    const last = groups.at(-1);
    if (m.role === "tool" && last && last[0]?.role === "assistant") last.push(m);
    else groups.push([m]);
  }
  return groups;
}

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
