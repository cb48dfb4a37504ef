import { ANSWER_RATINGS, type AnswerRating, FEEDBACK_COMMENT_MAX } from "../../contracts/index.js";
import { type ChannelCommand, channelKey } from "../channels/channel.js";
import type { ConversationStore } from "../conversations/index.js";
import type { ChatEvolution } from "./chat-sessions.js";

export const FEEDBACK_USAGE =
  "Send /feedback up or /feedback down, then a comment if you like: it rates the agent's last answer here.";

/**
 * `/feedback up|down [comment]` in a linked chat: rates the last answer of the chat's current conversation, as
 * the chat's user, the way the UI's thumbs do (POST /api/feedback), and says what was recorded.
 */
export function feedbackCommand(evolution: ChatEvolution, conversations: ConversationStore): ChannelCommand {
  return async (link, arg) => {
    const [word = "", ...rest] = arg.trim().split(/\s+/);
    const rating = word.toLowerCase();
    if (!isRating(rating)) return FEEDBACK_USAGE;
    const comment = arg.trim().slice(word.length).trim();
    if (comment.length > FEEDBACK_COMMENT_MAX)
      return `That comment is longer than ${FEEDBACK_COMMENT_MAX} characters; nothing was recorded.`;
    const sessionId = link.sessionId;
    const last = sessionId
      ? conversations.entries(sessionId).findLast((e) => e.role === "assistant" || e.role === "error")
      : undefined;
    if (!sessionId || !last) return "There is no answer to rate yet in this conversation.";
    const recorded = evolution.rate(link.userId, {
      session_id: sessionId,
      message_seq: last.seq,
      rating,
      ...(rest.length > 0 ? { comment } : {}),
      via: channelKey(link.kind, link.bot),
    });
    const thumb = rating === "up" ? "👍" : "👎";
    return recorded.stored
      ? `${thumb} Recorded your feedback on the last answer. Thank you.`
      : `${thumb} That feedback on the last answer was already recorded.`;
  };
}

function isRating(word: string): word is AnswerRating {
  return (ANSWER_RATINGS as readonly string[]).includes(word);
}
