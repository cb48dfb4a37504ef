import { ConflictError, NotFoundError } from "../../core/index.js";
import { type ChannelCommand, channelKey } from "../channels/channel.js";
import type { EscalationBook } from "./escalation-book.js";

/**
 * `/ack <id>` in a linked chat (typed, or sent by the Acknowledge button): acknowledges the escalation as the
 * chat's user, from that chat's channel, and says so, or why not.
 */
export function ackCommand(
  book: Pick<EscalationBook, "ack">,
  isAdmin: (userId: string) => boolean,
): ChannelCommand {
  return async (link, arg) => {
    if (arg === "") return "Send /ack <id>: every escalation message names its id.";
    const channel = channelKey(link.kind, link.bot);
    try {
      const acked = await book.ack({ userId: link.userId, admin: isAdmin(link.userId), channel }, arg);
      return `Acknowledged escalation ${acked.escalation_id}.`;
    } catch (error) {
      if (error instanceof NotFoundError) return `There is no escalation ${arg} of yours.`;
      if (error instanceof ConflictError)
        return `${error.message.charAt(0).toUpperCase()}${error.message.slice(1)}.`;
      throw error;
    }
  };
}
