import type { CommandErrorCode, CommandRequest, CommandResult, CommandRun } from "../contracts/index.js";
import { ConflictError, InvalidInputError, type Logger, NotFoundError } from "../core/index.js";
import type { AuditEntry } from "./audit-store.js";
import type { CommandGateway, CommandRunView, ConversationRef } from "./command-gateway.js";
import type { ConversationStore } from "./conversations/index.js";

/** The answer to one CommandRequest: the run, or why not (the fields of a CommandResult). */
export type CommandReply = Pick<CommandResult, "run" | "error">;

/** Serves one cell's CommandRequest for the cell's owner. */
export type CommandRequestHandler = (userId: string, request: CommandRequest) => Promise<CommandReply>;

export interface CommandDeskOptions {
  /** Command as this host runs it; absent when the host does not, and every request is told so. */
  gateway?: CommandGateway;
  conversations: ConversationStore;
  audit: (entry: AuditEntry) => void;
  logger: Logger;
}

const NOT_ENABLED = "command is not enabled on this host";
const ORDERS_SHOWN = 500;

/**
 * The warden's side of the command tool. What a cell asks is checked before command sees it: the request must
 * be the cell's own user's, a run is looked up as that user's (another user's run is "not found", the same
 * answer as no run at all), and the conversation a run reports to is one of the user's own, its channel read
 * from the warden's record rather than the cell. Every request is audited with its outcome.
 */
export function createCommandDesk(options: CommandDeskOptions): CommandRequestHandler {
  return async (userId, request) => {
    const reply = await answer(userId, request, options);
    auditCommand(options.audit, userId, request, reply);
    return reply;
  };
}

/** What a host without command answers, audited like any other request. */
export function commandNotEnabled(audit: (entry: AuditEntry) => void): CommandRequestHandler {
  return async (userId, request) => {
    const reply = refusal("not_enabled", NOT_ENABLED);
    auditCommand(audit, userId, request, reply);
    return reply;
  };
}

async function answer(userId: string, request: CommandRequest, options: CommandDeskOptions) {
  if (request.user_id !== userId)
    return refusal("forbidden", `this cell belongs to ${userId}, not to ${request.user_id}`);
  const { gateway } = options;
  if (!gateway) return refusal("not_enabled", NOT_ENABLED);
  try {
    if (request.action === "start") {
      const theaterId = request.theater_id ?? "";
      const conversation = conversationOf(options.conversations, userId, request.session_id);
      const started = await gateway.start(userId, {
        theaterId,
        objective: request.objective ?? "",
        ...(conversation ? { conversation } : {}),
      });
      return { run: { run_id: started.runId, theater_id: theaterId, status: started.status, orders: [] } };
    }
    const runId = request.run_id ?? "";
    const owned = ownRun(await gateway.status(userId, runId), userId);
    if (!owned) return refusal("not_found", `run ${runId} not found`);
    if (request.action === "status") return { run: toWire(owned) };
    const cancelled = ownRun(await gateway.cancel(userId, runId), userId);
    return cancelled ? { run: toWire(cancelled) } : refusal("not_found", `run ${runId} not found`);
  } catch (error) {
    if (error instanceof NotFoundError) return refusal("not_found", error.message);
    if (error instanceof ConflictError) return refusal("conflict", error.message);
    if (error instanceof InvalidInputError) return refusal("invalid", error.message);
    // Command's internals (paths, SQL, git's output) are the operator's: the log keeps them.
    options.logger.error({ err: error, user: userId, action: request.action }, "a command request failed");
    return refusal("failed", "command could not complete this request; try again");
  }
}

/** The user's conversation named by the request's session, with its channel as the warden recorded it. */
function conversationOf(
  conversations: ConversationStore,
  userId: string,
  sessionId: string,
): ConversationRef | undefined {
  const conversation = conversations.get(userId, sessionId);
  return conversation ? { sessionId: conversation.id, channel: conversation.channel } : undefined;
}

/** The gateway's answer, kept only when it is the asking user's run: the warden checks even its own services. */
function ownRun(view: CommandRunView | undefined, userId: string): CommandRunView | undefined {
  return view?.userId === userId ? view : undefined;
}

/** A run as the contract carries it, cut to what one frame holds. */
function toWire(view: CommandRunView): CommandRun {
  return {
    run_id: view.runId,
    theater_id: view.theaterId,
    status: view.status,
    orders: view.orders.slice(0, ORDERS_SHOWN).map((o) => ({
      order_id: o.orderId,
      title: o.title.slice(0, 500),
      status: o.status,
    })),
    ...(view.reply === undefined ? {} : { reply: view.reply.slice(0, 20_000) }),
  };
}

function refusal(code: CommandErrorCode, message: string): CommandReply {
  return { error: { code, message: message.slice(0, 2000) } };
}

function auditCommand(
  audit: (entry: AuditEntry) => void,
  userId: string,
  request: CommandRequest,
  reply: CommandReply,
): void {
  audit({
    userId,
    actor: `cell:${userId}`,
    action: `command.${request.action}`,
    detail: {
      session: request.session_id,
      ...(request.theater_id ? { theater_id: request.theater_id } : {}),
      ...(request.run_id ? { run_id: request.run_id } : {}),
      ...(reply.run ? { run_id: reply.run.run_id, status: reply.run.status } : {}),
      ...(request.objective ? { objective_chars: request.objective.length } : {}),
      outcome: reply.error ? reply.error.code : "ok",
      ...(reply.error ? { reason: reply.error.message } : {}),
    },
  });
}
