import type { ChatMessage } from "../contracts/index.js";
import { canonicalJson, InvalidInputError, newId, sha256Hex } from "../core/index.js";
import { BRAIN_PATHS, type BrainLayout } from "./brain-layout.js";
import { type CompactionPolicy, estimateTokens, selectSlice } from "./compaction-budget.js";
import type { CompactionLog, CompactionRecord } from "./compaction-log.js";
import { appendSection } from "./remember.js";

/** Summarises a slice of conversation; supplied by the agent loop (usually a model call). */
export type Summariser = (slice: readonly ChatMessage[], signal?: AbortSignal) => Promise<string>;

export type CompactionOutcome =
  | { status: "not-needed"; messages: readonly ChatMessage[]; usage: number }
  | {
      status: "compacted";
      messages: ChatMessage[];
      record: CompactionRecord;
      usageBefore: number;
      usageAfter: number;
    }
  /** Nothing was evicted: the context comes back exactly as it went in, with why. */
  | {
      status: "failed";
      messages: readonly ChatMessage[];
      stage: "summarise" | "write" | "record";
      error: string;
    };

export interface CompactionInput {
  sessionId: string;
  /** The conversation as the model is sent it; leading system messages (the prompt) are never evicted. */
  messages: readonly ChatMessage[];
  policy: CompactionPolicy;
  summarise: Summariser;
  /** The context's size as the model last reported it; estimated from the messages when absent. */
  usage?: number;
  now?: Date;
  signal?: AbortSignal;
}

export interface CompactionTarget {
  brain: BrainLayout;
  log: CompactionLog;
  /** Called with `memory.md` once the summary is written, so it gets indexed. */
  onWritten?: (path: string) => void;
}

/**
 * The pre-compaction flush (seed 003 §7): when a session's context crosses `contextTokens - reserveTokens`,
 * summarise its oldest slice into `memory.md`, log the compaction in the brain database, and return the context
 * without the slice (a short summary message takes its place). Each step must succeed before the next starts; if
 * any fails the outcome is `failed` and the caller keeps the full context, so a slice is never lost — at worst a
 * summary is written twice.
 */
export async function flushBeforeCompaction(
  input: CompactionInput,
  target: CompactionTarget,
): Promise<CompactionOutcome> {
  if (input.sessionId.trim() === "") throw new InvalidInputError("sessionId", "must not be empty");
  const slice = selectSlice(input.messages, input.policy, input.usage);
  if (!slice) {
    return {
      status: "not-needed",
      messages: input.messages,
      usage: input.usage ?? estimateTokens(input.messages),
    };
  }
  const evicted = input.messages.slice(slice.start, slice.end);
  let summary: string;
  try {
    summary = (await input.summarise(evicted, input.signal)).trim();
    if (summary === "") throw new Error("the summariser returned an empty summary");
  } catch (error) {
    return { status: "failed", messages: input.messages, stage: "summarise", error: messageOf(error) };
  }
  const now = input.now ?? new Date();
  const first = messageRef(evicted[0] as ChatMessage);
  const last = messageRef(evicted.at(-1) as ChatMessage);
  const record: CompactionRecord = {
    id: newId(),
    createdAt: now.toISOString(),
    sessionId: input.sessionId,
    firstMessage: first,
    lastMessage: last,
    messageCount: evicted.length,
    tokenCount: slice.sliceTokens,
    summaryHash: sha256Hex(summary),
    affectedDocs: [BRAIN_PATHS.memory],
  };
  const heading = `## Session summary ${record.createdAt.slice(0, 16).replace("T", " ")} UTC`;
  const provenance =
    `_Compacted from session ${input.sessionId}: ${evicted.length} messages, ` +
    `${first.slice(0, 12)} to ${last.slice(0, 12)}._`;
  try {
    await appendSection(
      target.brain,
      BRAIN_PATHS.memory,
      "# Memory\n",
      `${heading}\n\n${summary}\n\n${provenance}\n`,
    );
  } catch (error) {
    return { status: "failed", messages: input.messages, stage: "write", error: messageOf(error) };
  }
  try {
    target.log.add(record);
  } catch (error) {
    return { status: "failed", messages: input.messages, stage: "record", error: messageOf(error) };
  }
  target.onWritten?.(BRAIN_PATHS.memory);
  const replacement: ChatMessage = {
    role: "system",
    content: `Summary of the earlier conversation (saved to memory.md):\n${summary}`,
  };
  const messages = [...input.messages.slice(0, slice.start), replacement, ...input.messages.slice(slice.end)];
  // The summary is estimated; the rest keeps the scale of the reported usage the slice was chosen on.
  const usageAfter = slice.usage - slice.sliceTokens + estimateTokens([replacement]);
  return { status: "compacted", messages, record, usageBefore: slice.usage, usageAfter };
}

/**
 * Which message a record names: the sha256 of its canonical JSON. Messages carry no ids, and a hash finds the
 * message in any stored copy of the conversation (the session store, a transcript) without one.
 */
export function messageRef(message: ChatMessage): string {
  return sha256Hex(canonicalJson(message));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
