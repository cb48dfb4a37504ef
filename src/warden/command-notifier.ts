import type { ChatCore } from "./chat-core.js";
import type { CommandNotify } from "./command-gateway.js";

/**
 * The notify a CommandGateway implementation is given: the message goes into the conversation (what the UI and
 * the API show) and out to the front door it came from (a Telegram chat), by the warden's chat core.
 */
export function commandNotifier(chat: Pick<ChatCore, "post">): CommandNotify {
  return (userId, conversation, text, { kind, runId }) =>
    chat.post(userId, conversation, text, { kind, source: "command", ref: runId });
}
