import type { AnswerRating } from "../../contracts/index.js";
import { InvalidInputError, NotFoundError } from "../../core/index.js";
import { derivedUuid } from "../../evolution/index.js";
import type { Conversation, ConversationEntry, ConversationStore } from "../conversations/index.js";
import { cutTask, type EvolutionFeed, type WardenEvent } from "./evolution-feed.js";

/** Conversations whose start this process remembers having recorded. */
const REMEMBERED_STARTS = 10_000;

/**
 * A rating's outcome (seed 004 status and score). Only the two ends: a thumb says the answer served or did not,
 * and nothing finer; "partial" is left to command runs, whose outcome is a share of orders merged.
 */
const RATED = { up: { status: "success", score: 1 }, down: { status: "failure", score: 0 } } as const;

export interface AnswerRatingInput {
  session_id: string;
  message_seq: number;
  rating: AnswerRating;
  comment?: string;
  /** Where the rating was given: `api` (the UI) or a chat channel such as `telegram:<bot>`. */
  via: string;
}

export interface RecordedRating {
  session_id: string;
  message_seq: number;
  rating: AnswerRating;
  status: "success" | "failure";
  score: number;
  event_id: string;
  record_id: string;
  stored: boolean;
}

/**
 * IronClaw's conversations as evolution evidence: each emits one session_started (its first message as the task,
 * the tools its first answer used) once its first turn is answered, and each rating of an answer a
 * session_feedback naming the tools that answer used. Event ids derive from the conversation (and the rated
 * entry, rating and comment), so a restart or a retried request never records one twice.
 */
export class ChatEvolution {
  private readonly started = new Set<string>();

  constructor(
    private readonly feed: EvolutionFeed,
    private readonly conversations: ConversationStore,
  ) {}

  /** A turn of the user's conversation was answered: its session_started, once, off the turn's path. */
  turnAnswered(userId: string, sessionId: string): void {
    if (this.started.has(sessionId)) return;
    this.started.add(sessionId);
    // Only spares the store a duplicate it would skip anyway, so the oldest conversations may be forgotten.
    if (this.started.size > REMEMBERED_STARTS)
      this.started.delete(this.started.values().next().value as string);
    this.feed.later("a chat session", () => {
      try {
        const conversation = this.conversations.get(userId, sessionId);
        if (!conversation) return;
        this.feed.record([this.startedEvent(conversation)], { userId, admin: false });
      } catch (error) {
        this.started.delete(sessionId);
        throw error;
      }
    });
  }

  /** Records a rating of one answer of the user's own conversation; another's is not found. */
  rate(userId: string, input: AnswerRatingInput): RecordedRating {
    const conversation = this.conversations.get(userId, input.session_id);
    if (!conversation) throw new NotFoundError("session", input.session_id);
    const entries = this.conversations.entries(conversation.id, { limit: input.message_seq + 1 });
    const answer = entries.find((entry) => entry.seq === input.message_seq);
    if (!answer || (answer.role !== "assistant" && answer.role !== "error"))
      throw new InvalidInputError(
        "$.body.message_seq",
        `must be an answer of session ${conversation.id} (entry ${input.message_seq} is ${answer ? `a ${answer.role} entry` : "not in it"})`,
      );
    const outcome = RATED[input.rating];
    const comment = input.comment?.trim() || undefined;
    const eventId = derivedUuid(
      "ironclaw-answer-feedback",
      conversation.id,
      String(answer.seq),
      input.rating,
      comment ?? "",
    );
    const event: WardenEvent = {
      event_kind: "session_feedback",
      event_id: eventId,
      occurred_at: new Date().toISOString(),
      session_id: conversation.id,
      task: taskOf(conversation, entries),
      ...outcome,
      ...(comment ? { comment } : {}),
      selected_skill_ids: toolsOfTurn(entries, answer.seq),
      metadata: {
        ...sessionMetadata(conversation),
        message_seq: answer.seq,
        rating: input.rating,
        via: input.via,
      },
    };
    // The start goes with it (skipped when already stored): a conversation older than this record has one too.
    const result = this.feed.record([this.startedEvent(conversation), event], { userId, admin: false });
    const mine = result.envelopes.find((envelope) => envelope.event_id === eventId);
    return {
      session_id: conversation.id,
      message_seq: answer.seq,
      rating: input.rating,
      ...outcome,
      event_id: eventId,
      record_id: this.feed.projectionOf(eventId),
      stored: mine?.outcome === "stored",
    };
  }

  private startedEvent(conversation: Conversation): WardenEvent {
    const entries = this.conversations.entries(conversation.id, { limit: 200 });
    const firstAnswer = entries.find((entry) => entry.role === "assistant" || entry.role === "error");
    return {
      event_kind: "session_started",
      event_id: derivedUuid("ironclaw-session-started", conversation.id),
      occurred_at: conversation.createdAt,
      session_id: conversation.id,
      task: taskOf(conversation, entries),
      selected_skill_ids: firstAnswer ? toolsOfTurn(entries, firstAnswer.seq) : [],
      metadata: sessionMetadata(conversation),
    };
  }
}

function sessionMetadata(conversation: Conversation): Record<string, unknown> {
  return {
    channel: conversation.channel,
    user_id: conversation.userId,
    session_id: conversation.id,
    agent: conversation.agent,
  };
}

/** The conversation's first message, trimmed and cut (cutTask); its title when none is kept. */
function taskOf(conversation: Conversation, entries: readonly ConversationEntry[]): string {
  const first = entries.find((entry) => entry.role === "user")?.content.trim() || conversation.title.trim();
  return cutTask(first || `conversation ${conversation.id}`);
}

/** The tools (names, first use first, each once) that ran between the question and the answer at `seq`. */
function toolsOfTurn(entries: readonly ConversationEntry[], seq: number): string[] {
  const before = entries.filter((entry) => entry.seq < seq);
  const asked = before.findLast((entry) => entry.role === "user")?.seq ?? -1;
  const tools = before
    .filter((entry) => entry.seq > asked && entry.role === "tool" && typeof entry.meta.tool === "string")
    .map((entry) => entry.meta.tool as string);
  return [...new Set(tools)];
}
