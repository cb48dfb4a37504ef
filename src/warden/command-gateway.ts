import type { OrderStatus, RunStatus } from "../contracts/index.js";
import type { ConversationEntry, ConversationRef, NoticeKind } from "./conversations/index.js";

export type { ConversationRef } from "./conversations/index.js";

/** What starting a run takes: where, what for, and the conversation it was asked from. */
export interface CommandStart {
  theaterId: string;
  objective: string;
  /**
   * The user's conversation the run was started from, which its progress and final reply go back to; absent
   * when the agent asked from a session the warden keeps no conversation of (a cron job's run).
   */
  conversation?: ConversationRef;
}

/** One order of a run as its user sees it. */
export interface CommandOrderView {
  orderId: string;
  title: string;
  status: OrderStatus;
}

/** A run as its user sees it; `userId` is whose it is, which the warden checks again before answering. */
export interface CommandRunView {
  runId: string;
  theaterId: string;
  userId: string;
  status: RunStatus;
  orders: CommandOrderView[];
  /** The run's final reply (RUN_COMPLETED's reply), once it has one. */
  reply?: string;
}

/**
 * The warden's one way to command for a user's own agent: what the `command` tool's requests become once the
 * warden has checked them. An implementation over command's CommandingOfficer:
 *
 * - keeps each run's owner and conversation, and answers `status`/`cancel` for the owner only: another user's
 *   run, like an unknown one, is `undefined` (the warden says "not found", never "not yours");
 * - throws NotFoundError for an unknown theater, ConflictError for what the run cannot do now (cancelling a
 *   finished run), InvalidInputError for input command refuses; anything else is reported to the cell as a
 *   failure without its message (the host's log keeps it);
 * - posts to the run's conversation with `notify` (commandNotifier below) when the run changes: its orders
 *   planned, an order integrated or failed (`progress`), the run completed (RUN_COMPLETED's reply, as the
 *   assistant: `reply`), failed or was cancelled (`failure`).
 */
export interface CommandGateway {
  start(userId: string, start: CommandStart): Promise<{ runId: string; status: RunStatus }>;
  status(userId: string, runId: string): Promise<CommandRunView | undefined>;
  cancel(userId: string, runId: string): Promise<CommandRunView | undefined>;
}

/** Posts a run's news to the conversation it was started from; undefined when that conversation is gone. */
export type CommandNotify = (
  userId: string,
  conversation: ConversationRef,
  text: string,
  notice: { kind: NoticeKind; runId: string },
) => ConversationEntry | undefined;
