import { Emitter, type Logger } from "../core/index.js";
import type { BrainMemory, ForgetMatcher, ForgetScope, PromotionRule, SearchHit } from "../memory/index.js";
import type { ChatMessage } from "../providers/index.js";
import type { AgentDatabase } from "./agent-db.js";
import type { AgentRunResult } from "./agent-event.js";
import { citedHits } from "./citations.js";
import type { DayLog } from "./day-log.js";
import { redactMessages, redactText } from "./forget-scrub.js";
import { MemoryChangeLog } from "./memory-change-log.js";
import { correctMemory, type ForgetReport, type ForgetRequest, forgetMemory } from "./memory-forgetting.js";
import { PromotionStore } from "./promotion-store.js";
import type { MemoryToolOperations } from "./tools/memory-tool.js";
import { TranscriptLog, transcriptTurn } from "./transcript-log.js";

export interface TurnEnd {
  sessionId: string;
  agent: string;
  prompt: string;
  result: AgentRunResult;
  startedAt: Date;
  finishedAt: Date;
  /** Write the turn to the session's transcript (chat sessions); cron runs report to the day's log instead. */
  transcript: boolean;
}

/** An applied forget: what copies elsewhere must lose, and how many places of the brain it removed. */
export interface Forgotten {
  scope: ForgetScope;
  places: number;
}

/**
 * What a brain remembers of its conversations, around each turn: the transcript, forgetting (which must also
 * reach the turn in which it was asked), corrections, and which recalled passages answers cited (for
 * promotion). Bookkeeping after a turn never fails the turn: a problem is logged and the answer stands.
 */
export class ConversationMemory {
  readonly transcripts: TranscriptLog;
  readonly changes: MemoryChangeLog;
  readonly promotions: PromotionStore;
  // Per session, during its turn: passages handed to the model, and what it was asked to forget.
  private readonly recalled = new Map<string, SearchHit[]>();
  private readonly forgotten = new Map<string, ForgetMatcher[]>();
  private readonly forgets = new Emitter<[Forgotten]>();

  constructor(
    private readonly parts: {
      memory: BrainMemory;
      db: AgentDatabase;
      dayLog: DayLog;
      now: () => Date;
      logger: Logger;
      /** The promotion rule in force (irowclaw.toml [promotion]); null when proposals are off. */
      promotionRule?: () => PromotionRule | null;
    },
  ) {
    this.transcripts = new TranscriptLog(parts.db, parts.memory);
    this.changes = new MemoryChangeLog(parts.db, parts.dayLog);
    this.promotions = new PromotionStore(parts.db, parts.memory, this.changes, parts.promotionRule);
  }

  /** Forgets `target` everywhere (see forgetMemory); the session asking has it removed from its turn too. */
  async forget(request: Omit<ForgetRequest, "at"> & { at?: Date }): Promise<ForgetReport> {
    const { memory, db } = this.parts;
    const report = await forgetMemory(
      { memory, db, changes: this.changes },
      { ...request, at: request.at ?? this.parts.now() },
    );
    if (report.applied && report.matcher && request.sessionId) {
      const list = this.forgotten.get(request.sessionId) ?? [];
      list.push(report.matcher);
      this.forgotten.set(request.sessionId, list);
    }
    if (report.applied && report.scope) {
      const forgotten = { scope: report.scope, places: report.places.length };
      this.forgets.emit(forgotten);
    }
    return report;
  }

  /**
   * Tells `listener` of every forget applied to this brain (by the agent, a job or its owner), so copies kept
   * outside it — the warden's record of what the user saw — lose the text too.
   */
  onForgotten(listener: (forgotten: Forgotten) => void): () => void {
    return this.forgets.on(listener);
  }

  /** The memory tool's operations on this brain. */
  toolOperations(): MemoryToolOperations {
    const { memory, db } = this.parts;
    return {
      remember: (text, options) => memory.remember(text, { now: this.parts.now(), ...options }),
      recall: (query, options) => memory.recall(query, options),
      forget: (target, { sessionId }) => this.forget({ target, apply: true, actor: "agent", sessionId }),
      correct: (correction, { sessionId }) =>
        correctMemory({ memory, db, changes: this.changes }, correction, {
          actor: "agent",
          sessionId,
          at: this.parts.now(),
        }),
      onRecalled: (sessionId, hits) => this.noteRecalled(sessionId, hits),
    };
  }

  noteRecalled(sessionId: string, hits: readonly SearchHit[]): void {
    this.recalled.set(sessionId, [...(this.recalled.get(sessionId) ?? []), ...hits]);
  }

  /**
   * After a turn: drops forgotten text from what the turn keeps, writes the transcript, records the passages the
   * answer cited and lets the promotion rule look at them. Returns the conversation to store.
   */
  async endTurn(
    end: TurnEnd,
  ): Promise<{ messages: ChatMessage[]; newMessages: ChatMessage[]; text: string }> {
    const matchers = this.forgotten.get(end.sessionId) ?? [];
    const hits = this.recalled.get(end.sessionId) ?? [];
    this.forgotten.delete(end.sessionId);
    this.recalled.delete(end.sessionId);
    let { messages, newMessages, text } = end.result;
    let prompt = end.prompt;
    for (const matches of matchers) {
      messages = redactMessages(messages, matches);
      newMessages = redactMessages(newMessages, matches);
      text = redactText(text, matches);
      prompt = redactText(prompt, matches);
    }
    const own = this.transcripts.pathOf(end.sessionId);
    if (end.transcript) {
      await this.transcripts
        .append(transcriptTurn({ ...end, prompt, newMessages, ...noteOf(end.result) }))
        .catch((error: Error) =>
          this.parts.logger.warn(
            { err: error, session: end.sessionId },
            "the turn's transcript was not written",
          ),
        );
    }
    try {
      const said = newMessages.flatMap((m) => (m.role === "assistant" ? [m.content] : [])).join("\n");
      const used = citedHits(said, hits).filter((h) => h.path !== own);
      this.parts.logger.debug({ session: end.sessionId, cited: used.length }, "recalled passages cited");
      if (used.length > 0) {
        this.promotions.recordUses(end.sessionId, used, end.finishedAt);
        this.promotions.propose(end.finishedAt);
      }
    } catch (error) {
      this.parts.logger.warn({ err: error, session: end.sessionId }, "recall uses were not recorded");
    }
    return { messages, newMessages, text };
  }
}

function noteOf(result: AgentRunResult): { note?: string } {
  switch (result.stopReason) {
    case "error":
      return { note: `the turn ended with an error: ${result.error?.message ?? "unknown"}` };
    case "aborted":
      return { note: "the turn was stopped" };
    case "max_steps":
      return { note: "the turn reached its step limit" };
    case "length":
      return { note: "the answer was cut at the output limit" };
    default:
      return {};
  }
}
