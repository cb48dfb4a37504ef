import { redactText } from "../agent/index.js";
import type {
  BrainChangeOutcome,
  BrainChangeSink,
  BrainFileChange,
  CertifiedRequest,
} from "../attest/index.js";
import type { CellHandle } from "../cells/index.js";
import type { MemoryForgotten, TurnFailure } from "../contracts/index.js";
import { Emitter, type Logger, NotFoundError } from "../core/index.js";
import { scopeMatcher } from "../memory/index.js";
import type { ProviderFailure } from "../providers/index.js";
import { type TurnCertifying, TurnModels } from "./attest/index.js";
import type { AuditEntry } from "./audit-store.js";
import { BrainHolds } from "./brain-holds.js";
import { findBudgetRefusal } from "./budget/index.js";
import { crashLoopMessage, stoppedAnsweringMessage } from "./cell-trouble.js";
import type { ChatEvent, ChatService, ChatTurnInput, ConversationPost, JobNotice } from "./chat-events.js";
import {
  type ConversationEntry,
  type ConversationNotice,
  type ConversationRef,
  type ConversationStore,
  notifyConversation,
} from "./conversations/index.js";
import type { ChatEvolution } from "./evolution/index.js";
import { turnFailureOf } from "./model-failure.js";
import { SoulScanError, type SoulWatch } from "./soul/index.js";
import type { WardenCells } from "./warden-cells.js";

export interface ChatCoreOptions {
  cells: WardenCells;
  conversations: ConversationStore;
  soul: SoulWatch;
  logger: Logger;
  /** Where a failed turn's internals go (why a cell could not start or stopped answering): admins see them. */
  audit?: (entry: AuditEntry) => void;
  /** Longest a turn may run before the warden gives up on it. */
  turnTimeoutMs?: number;
  /** Where each change of a brain is recorded as a node of its history (provenance); none when absent. */
  brainChanges?: BrainChangeSink;
  /** Certifies each finished turn (request, reply, the brain state it left), off the turn's path; none when absent. */
  certifier?: TurnCertifying;
  /** Told of each answered turn: the conversation becomes evolution evidence, off the turn's path. */
  evolution?: Pick<ChatEvolution, "turnAnswered">;
}

const zero = { input_tokens: 0, output_tokens: 0 };

/**
 * Every front door's way to a user's agent: a turn is a UserMessage to the user's cell, its replies become
 * ChatEvents, and what the user saw is recorded in the conversation as it happens. Turns of one conversation
 * run one at a time, in order. A turn never throws once started: failures end it with a `done` that says what
 * went wrong and what to do.
 */
export class ChatCore implements ChatService {
  private readonly queues = new Map<string, Promise<void>>();
  private readonly notices = new Emitter<[JobNotice]>();
  private readonly posts = new Emitter<[ConversationPost]>();
  private readonly turnModels = new TurnModels();
  private readonly brainHolds = new BrainHolds();

  constructor(private readonly options: ChatCoreOptions) {
    options.cells.onJobStatus((userId, status) => {
      if (status.status !== "succeeded" && status.status !== "failed") return;
      const notice: JobNotice = {
        userId,
        jobId: status.job_id,
        status: status.status,
        ...(status.result_ref ? { resultRef: status.result_ref } : {}),
        ...(status.error ? { error: status.error } : {}),
      };
      this.notices.emit(notice);
      // A job may have rewritten a prompt file as much as a turn can.
      const cell = options.cells.running(userId);
      if (cell) void options.soul.scan(userId, cell, "agent").catch(() => undefined);
      this.brainChanged(userId, `job ${status.job_id} ${status.status}`);
    });
  }

  /**
   * A user's brain may have changed (a turn, a job, an edit through the warden): its history records the new
   * state in the background, so nothing the user waits for waits on it; a failure is logged, never thrown.
   */
  brainChanged(userId: string, cause: string, changes?: readonly BrainFileChange[]): void {
    void this.recordBrainChange(userId, cause, changes);
  }

  /** The record's outcome, for a turn's certificate to pin the state it left; undefined without a history. */
  private recordBrainChange(
    userId: string,
    cause: string,
    changes?: readonly BrainFileChange[],
  ): Promise<BrainChangeOutcome> | undefined {
    const sink = this.options.brainChanges;
    if (!sink) return undefined;
    const recorded = sink.brainChanged({ userId, cause, ...(changes ? { changes } : {}) });
    void recorded.then((outcome) => {
      if (!outcome.ok)
        this.options.logger.warn(
          { user: userId, cause, reason: outcome.error },
          "the brain history could not record a change",
        );
    });
    return recorded;
  }

  /** A model call a cell made through the warden's proxy: a turn's certificate names the models it called. */
  noteModelCall(call: { userId: string; provider: string; model: string }): void {
    this.turnModels.note(call);
  }

  /**
   * Resolves once every brain change handed to the history so far is recorded. A record reads the brain as it is
   * when it runs, so one that runs late also holds a change made after it was asked for, and that change's own
   * record then finds nothing new: whoever needs each change in a state of its own waits here between them.
   */
  settleBrainChanges(): Promise<void> {
    return this.options.brainChanges?.settle() ?? Promise.resolve();
  }

  /** Resolves once every turn handed to the certifier so far is certified (or its failure logged). */
  settleCertificates(): Promise<void> {
    return this.options.certifier?.settle() ?? Promise.resolve();
  }

  /**
   * A user's brain forgot something: every state its history holds loses the words too, by the same rule the
   * conversation record follows (each paragraph or list item that says them becomes `[forgotten]`), and the
   * brain as it now is becomes a node. A failure is logged, never thrown.
   */
  brainForgot(userId: string, notice: MemoryForgotten): void {
    const sink = this.options.brainChanges;
    if (!sink) return;
    const matches = scopeMatcher(notice.scope);
    void sink
      .brainForgot(userId, (_path, markdown) => redactText(markdown, matches), "memory forgotten")
      .then((result) => {
        if (!result.ok)
          this.options.logger.error(
            { user: userId, reason: result.error },
            "forgotten text could not be removed from the brain history",
          );
      });
    this.brainChanged(userId, "memory forgotten");
  }

  /** A host entry naming the user in its detail, so that the user's own audit view does not show it. */
  private auditFailure(userId: string, action: string, error: unknown): void {
    this.options.audit?.({
      actor: "warden",
      action,
      detail: { user: userId, reason: error instanceof Error ? error.message : String(error) },
    });
  }

  onJobNotice(listener: (notice: JobNotice) => void): () => void {
    return this.notices.on(listener);
  }

  onConversationPost(listener: (post: ConversationPost) => void): () => void {
    return this.posts.on(listener);
  }

  /**
   * Adds a message to one of the user's conversations outside a turn (notifyConversation), and tells the front
   * doors, which relay it where the conversation is. Undefined when the conversation is not the user's.
   */
  post(
    userId: string,
    conversation: ConversationRef,
    text: string,
    notice: ConversationNotice,
  ): ConversationEntry | undefined {
    const entry = notifyConversation(this.options.conversations, userId, conversation, text, notice);
    if (entry)
      this.posts.emit({
        userId,
        sessionId: conversation.sessionId,
        channel: conversation.channel,
        text: entry.content,
        ...notice,
      });
    return entry;
  }

  /**
   * Runs `work` (a restore of the brain) while none of the user's turns is answered: refused while one is, and
   * the turns that arrive meanwhile wait until it ends.
   */
  holdBrain<T>(userId: string, work: () => Promise<T>): Promise<T> {
    return this.brainHolds.hold(userId, work);
  }

  async *turn(input: ChatTurnInput): AsyncIterable<ChatEvent> {
    const { conversations } = this.options;
    const conversation = input.sessionId
      ? conversations.get(input.userId, input.sessionId)
      : conversations.create(input.userId, {
          channel: input.channel,
          ...(input.agent ? { agent: input.agent } : {}),
        });
    if (!conversation) throw new NotFoundError("session", input.sessionId ?? "");
    yield { type: "session", sessionId: conversation.id, ...(input.agent ? { agent: input.agent } : {}) };
    // One turn at a time per conversation: the brain's history of it is read and replaced by each turn.
    const previous = this.queues.get(conversation.id) ?? Promise.resolve();
    let release = () => {};
    const mine = new Promise<void>((resolve) => {
      release = resolve;
    });
    const chained = previous.then(() => mine);
    this.queues.set(conversation.id, chained);
    let leave = () => {};
    try {
      await previous;
      leave = await this.brainHolds.enterTurn(input.userId);
      yield* this.run(conversation.id, input);
    } finally {
      leave();
      release();
      if (this.queues.get(conversation.id) === chained) this.queues.delete(conversation.id);
    }
  }

  private async *run(sessionId: string, input: ChatTurnInput): AsyncGenerator<ChatEvent> {
    const { conversations, soul, cells } = this.options;
    conversations.append(sessionId, "user", input.text, {
      channel: input.channel,
      ...(input.agent ? { agent: input.agent } : {}),
    });
    const fail = (error: string, failure: TurnFailure = "refused"): ChatEvent => {
      conversations.append(sessionId, "error", error, { failure });
      return { type: "done", text: "", usage: zero, stopReason: "error", error, failure };
    };
    let cell: CellHandle;
    try {
      const refusal = await soul.gate(input.userId);
      if (refusal) {
        yield fail(refusal);
        return;
      }
      ({ cell } = await cells.get(input.userId));
      // Every turn: whatever changed the prompt files since the last look (another conversation's turn, a
      // job, a new cell) is judged before the cell reads them into this turn's prompt.
      if ((await soul.scan(input.userId, cell, "scan")) === "held") {
        yield fail(soul.halted(input.userId) ?? "this agent is halted by the soul guard");
        return;
      }
    } catch (error) {
      if (error instanceof SoulScanError) {
        yield fail(`${error.message}. The turn was not started.`);
        return;
      }
      this.options.logger.error({ err: error, user: input.userId }, "the user's cell is not available");
      // Why it could not start names host paths and programs: the operator's, in the audit and the log.
      this.auditFailure(input.userId, "cell.unavailable", error);
      yield fail(
        crashLoopMessage(error) ??
          "your agent could not start right now. Try again in a moment; if it keeps failing, the operator can run `ironclaw doctor` to see why.",
        "cell_unavailable",
      );
      return;
    }
    const started = Date.now();
    const modelsCalled = this.turnModels.begin(input.userId);
    let text = "";
    let finished = false;
    try {
      const replies = cell.peer.request(
        {
          type: "UserMessage",
          session_id: sessionId,
          text: input.text,
          ...(input.agent ? { agent: input.agent } : {}),
          ...(input.history?.length ? { history: input.history } : {}),
        },
        {
          timeoutMs: this.options.turnTimeoutMs ?? 30 * 60_000,
          ...(input.signal ? { signal: input.signal } : {}),
        },
      );
      for await (const reply of replies) {
        if (reply.type === "StreamDelta") {
          text += reply.delta;
          yield { type: "delta", text: reply.delta };
        } else if (reply.type === "ToolResult") {
          conversations.append(sessionId, "tool", reply.content, {
            tool: reply.tool,
            call_id: reply.call_id,
            is_error: reply.isError,
            ...(reply.outcome ? { outcome: reply.outcome } : {}),
            ...(reply.args !== undefined ? { args: reply.args } : {}),
            ...(reply.duration_ms !== undefined ? { duration_ms: reply.duration_ms } : {}),
          });
          yield {
            type: "tool",
            callId: reply.call_id,
            tool: reply.tool,
            isError: reply.isError,
            ...(reply.outcome ? { outcome: reply.outcome } : {}),
            content: reply.content,
            ...(reply.args !== undefined ? { args: reply.args } : {}),
            ...(reply.duration_ms !== undefined ? { durationMs: reply.duration_ms } : {}),
          };
        } else if (reply.type === "TurnComplete") {
          finished = true;
          // Before the answer goes out (a consumer may stop reading at `done`): the agent may have rewritten
          // its own soul or instructions during the turn.
          await soul
            .scan(input.userId, cell, "agent")
            .catch((error: Error) =>
              this.options.logger.warn(
                { err: error, user: input.userId },
                "the prompt files could not be checked after the turn",
              ),
            );
          // After the soul scan, which may have put an approved prompt file back.
          const cause = reply.turn_id ? `turn ${reply.turn_id}` : `turn in ${sessionId}`;
          const recorded = this.recordBrainChange(input.userId, cause);
          const error = reply.error ? explainTurnError(reply.error, reply.failure) : undefined;
          const failure = error ? (reply.failure ? turnFailureOf(reply.failure) : "agent_error") : undefined;
          const stored = conversations.append(
            sessionId,
            error ? "error" : "assistant",
            error ? `${reply.text}${reply.text ? "\n\n" : ""}${error}` : reply.text,
            {
              usage: reply.usage,
              stop_reason: reply.stop_reason,
              ms: Date.now() - started,
              ...(failure ? { failure } : {}),
            },
          );
          // Handed over before `done` (a consumer may stop reading there); the certifier starts only after the
          // turn's state is recorded, which is past the end of the turn.
          this.options.certifier?.certify({
            userId: input.userId,
            sessionId,
            messageSeq: stored.seq,
            ...(reply.turn_id ? { turnId: reply.turn_id } : {}),
            request: certifiedRequest(input, modelsCalled()),
            response: reply.text,
            startedAt: new Date(started),
            finishedAt: new Date(),
            recorded,
          });
          this.options.evolution?.turnAnswered(input.userId, sessionId);
          yield {
            type: "done",
            text: reply.text,
            usage: reply.usage,
            stopReason: reply.stop_reason,
            ...(error ? { error, failure } : {}),
          };
        } else if (reply.type === "Error") {
          finished = true;
          yield fail(`the agent could not take the message: ${reply.message}`, "agent_error");
        }
      }
    } catch (error) {
      if (!finished) {
        if (!input.signal?.aborted) this.auditFailure(input.userId, "cell.stopped_answering", error);
        const why = input.signal?.aborted
          ? "the turn was stopped"
          : ((await stoppedAnsweringMessage(cell)) ??
            "your agent stopped answering mid-turn. Try again in a moment.");
        const partial = text ? `${text}\n\n` : "";
        conversations.append(sessionId, "error", `${partial}${why}`, {
          stop_reason: input.signal?.aborted ? "aborted" : "error",
          failure: input.signal?.aborted ? "aborted" : "cell_unavailable",
        });
        yield {
          type: "done",
          text,
          usage: zero,
          stopReason: input.signal?.aborted ? "aborted" : "error",
          error: why,
          failure: input.signal?.aborted ? "aborted" : "cell_unavailable",
        };
      }
    } finally {
      modelsCalled();
    }
  }
}

/**
 * What a turn asked, as the warden knows it: the messages it sent, the agent profile, and the models its cell
 * called through the proxy ("provider/model", comma-joined; "none"). The tools are chosen inside the cell from
 * the brain's configuration, which the warden does not read on a turn's path: the request says so.
 */
function certifiedRequest(input: ChatTurnInput, model: string): CertifiedRequest {
  return {
    messages: [...(input.history ?? []), { role: "user", content: input.text }],
    profile: input.agent ?? null,
    model,
    tool_policy: "brain-configured",
    channel: input.channel,
  };
}

/**
 * A failed turn as a sentence that says what to do about it, by the failed model call's code: the model proxy
 * already put a model's failure in words (model-failure.ts); a missing key adds where the operator sets it.
 */
function explainTurnError(error: string, failure: ProviderFailure | undefined): string {
  if (failure?.code === "missing_key")
    return `${error}. The operator sets the provider's key in the warden's environment (see [providers] in ironclawd.toml).`;
  // A spend cap's refusal already says what happened and what to do; the proxy's preamble adds nothing.
  return findBudgetRefusal(error)?.message ?? error;
}
