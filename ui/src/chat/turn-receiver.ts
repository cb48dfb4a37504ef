import { produce, type SetStoreFunction } from "solid-js/store";
import type { WsServerMessage } from "../api/endpoints.js";
import { applyTurnEvent } from "./chat-items.js";
import type { ChatState } from "./chat-state.js";

export interface TurnReceiverContext {
  state: ChatState;
  setState: SetStoreFunction<ChatState>;
  notice(level: "error" | "info", text: string): void;
  remember(sessionId: string | null): void;
  key(): string;
  reloadSessions(): void;
}

/**
 * What the chat does with each WebSocket message: events of the turn on screen grow the conversation; a turn
 * left running in the background only refreshes the list when it ends; a refusal ends the turn and says why.
 */
export function createTurnReceiver(ctx: TurnReceiverContext): (message: WsServerMessage) => void {
  const { state, setState } = ctx;
  return (message) => {
    if (message.type === "pong") return;
    const mine = state.turn !== null && "id" in message && message.id === state.turn.id;
    if (!mine) {
      if (message.type === "done") ctx.reloadSessions();
      else if (message.type === "error" && !message.id)
        ctx.notice("error", `The warden refused a message: ${message.message}`);
      return;
    }
    if (message.type === "error") {
      setState("turn", null);
      ctx.notice("error", `The message was not accepted: ${message.message}`);
      return;
    }
    if (message.type === "session") {
      if (message.sessionId !== state.sessionId) {
        ctx.remember(message.sessionId);
        ctx.reloadSessions();
      }
      return;
    }
    // For the first-token figure (bench/ui): when the answer starts to show.
    if (message.type === "delta" && !state.items.some((i) => i.kind === "assistant" && i.streaming))
      performance.mark("ironclaw:first-token");
    setState(
      "items",
      produce((items) => applyTurnEvent(items, message, ctx.key)),
    );
    if (message.type === "done") {
      setState("turn", null);
      ctx.reloadSessions();
    }
  };
}
