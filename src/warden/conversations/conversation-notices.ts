import type { ConversationEntry, ConversationStore } from "./conversation-store.js";

/** A conversation a message can be posted back to later: its id (the chat session) and the front door it uses. */
export interface ConversationRef {
  sessionId: string;
  /** Where the conversation's turns come from: `api`, `ws`, `openai`, `telegram:<bot>`… */
  channel: string;
}

/**
 * What a posted message is: `progress` of work the user started (orders planned, one merged or failed),
 * its final `reply`, or the `failure` that ended it. Progress and the reply are the assistant speaking; a failure
 * is shown as an error, as a failed turn is.
 */
export type NoticeKind = "progress" | "reply" | "failure";

export interface ConversationNotice {
  kind: NoticeKind;
  /** What the message is about (`command`) and which of it (the run's id), kept with the entry. */
  source: string;
  ref: string;
}

/** Longest posted message: a run's final reply is a page, not a log. */
const NOTICE_MAX_CHARS = 20_000;

/**
 * Adds a message to one of the user's conversations outside any turn, so the user sees it where they asked
 * (the UI's history, the API's entries). The conversation must be the user's: one of someone else's, or one
 * deleted since, is left alone and undefined comes back.
 */
export function notifyConversation(
  conversations: ConversationStore,
  userId: string,
  conversation: ConversationRef,
  text: string,
  notice: ConversationNotice,
): ConversationEntry | undefined {
  if (!conversations.get(userId, conversation.sessionId)) return undefined;
  const content =
    text.length > NOTICE_MAX_CHARS
      ? `${text.slice(0, NOTICE_MAX_CHARS)}\n[cut at ${NOTICE_MAX_CHARS} characters]`
      : text;
  return conversations.append(
    conversation.sessionId,
    notice.kind === "failure" ? "error" : "assistant",
    content,
    {
      notice: notice.kind,
      source: notice.source,
      ref: notice.ref,
      channel: conversation.channel,
    },
  );
}
