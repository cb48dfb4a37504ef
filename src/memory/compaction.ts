import { InvalidInputError, newId, sha256Hex } from "../core/index.js";
import { BRAIN_PATHS, type BrainLayout } from "./brain-layout.js";
import type { CompactionLog, CompactionRecord } from "./compaction-log.js";
import { appendSection } from "./remember.js";
import {
  type CompactionPolicy,
  type ContextMessage,
  estimateTokens,
  selectSlice,
  type TokenCounter,
  usageOf,
} from "./token-budget.js";

/** Summarises a slice of conversation; supplied by the agent loop (usually a model call). */
export type Summariser = (slice: readonly ContextMessage[], signal?: AbortSignal) => Promise<string>;

export type CompactionOutcome =
  | { status: "not-needed"; messages: readonly ContextMessage[]; usage: number }
  | {
      status: "compacted";
      messages: ContextMessage[];
      record: CompactionRecord;
      usageBefore: number;
      usageAfter: number;
    }
  /** Nothing was evicted: the context comes back exactly as it went in, with why. */
  | {
      status: "failed";
      messages: readonly ContextMessage[];
      stage: "summarise" | "write" | "record";
      error: string;
    };

export interface CompactionInput {
  sessionId: string;
  messages: readonly ContextMessage[];
  policy: CompactionPolicy;
  summarise: Summariser;
  countTokens?: TokenCounter;
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
 * The pre-compaction flush (seed 003 §7): when a session's context crosses `limit - buffer`, summarise its
 * oldest slice into `memory.md`, log the compaction in the brain database, and return the context without the
 * slice (a short summary message takes its place). Each step must succeed before the next starts; if any fails
 * the outcome is `failed` and the caller keeps the full context, so a slice is never lost — at worst a summary
 * is written twice.
 */
export async function flushBeforeCompaction(
  input: CompactionInput,
  target: CompactionTarget,
): Promise<CompactionOutcome> {
  const count = input.countTokens ?? estimateTokens;
  if (input.sessionId.trim() === "") throw new InvalidInputError("sessionId", "must not be empty");
  const usage = usageOf(input.messages, count);
  const slice = selectSlice(input.messages, input.policy, count);
  if (!slice) return { status: "not-needed", messages: input.messages, usage };
  const evicted = input.messages.slice(slice.start, slice.end);
  let summary: string;
  try {
    summary = (await input.summarise(evicted, input.signal)).trim();
    if (summary === "") throw new Error("the summariser returned an empty summary");
  } catch (error) {
    return { status: "failed", messages: input.messages, stage: "summarise", error: messageOf(error) };
  }
  const now = input.now ?? new Date();
  const first = evicted[0] as ContextMessage;
  const last = evicted.at(-1) as ContextMessage;
  const record: CompactionRecord = {
    id: newId(),
    createdAt: now.toISOString(),
    sessionId: input.sessionId,
    firstMessage: first.id,
    lastMessage: last.id,
    messageCount: evicted.length,
    tokenCount: usageOf(evicted, count),
    summaryHash: sha256Hex(summary),
    affectedDocs: [BRAIN_PATHS.memory],
  };
  const heading = `## Session summary ${record.createdAt.slice(0, 16).replace("T", " ")} UTC`;
  const provenance = `_Compacted from session ${input.sessionId}, messages ${first.id} to ${last.id}._`;
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
  const replacement: ContextMessage = {
    id: `compaction:${record.id}`,
    role: "system",
    content: `Summary of the earlier conversation (saved to memory.md):\n${summary}`,
  };
  const messages = [...input.messages.slice(0, slice.start), replacement, ...input.messages.slice(slice.end)];
  return { status: "compacted", messages, record, usageBefore: usage, usageAfter: usageOf(messages, count) };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
