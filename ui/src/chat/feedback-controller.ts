import { createStore } from "solid-js/store";
import type { ApiClient } from "../api/api-client.js";
import { createGenerations } from "../shared/generation.js";

export type Rating = "up" | "down";

export interface FeedbackState {
  sessionId: string | null;
  /** The ratings recorded in this view of the conversation, by the conversation entry (seq) rated. */
  recorded: Record<number, { rating: Rating; comment: string }>;
  /** The rating being given: the thumb chosen, the comment being written, and how sending it went. */
  draft: { seq: number; rating: Rating; comment: string; sending: boolean; error: string } | null;
}

export type FeedbackAction =
  | { type: "load"; sessionId: string | null }
  /** A thumb under the answer stored as entry `seq`: opens the optional comment before it is sent. */
  | { type: "choose"; seq: number; rating: Rating }
  | { type: "comment"; text: string }
  | { type: "send" }
  | { type: "cancel" };

/**
 * A thumbs up or down, with an optional comment, on each answer of the open conversation: sent to the warden
 * (POST /api/feedback), which records it for evolution; the answer then shows that it was recorded. A refusal
 * keeps the draft open with the warden's reason, so nothing written is lost.
 */
export function createFeedbackController(api: ApiClient) {
  const [state, setState] = createStore<FeedbackState>({ sessionId: null, recorded: {}, draft: null });
  const generations = createGenerations();

  async function send(): Promise<void> {
    const draft = state.draft;
    const sessionId = state.sessionId;
    if (!draft || !sessionId || draft.sending) return;
    const ticket = generations.next("send");
    setState("draft", { sending: true, error: "" });
    const comment = draft.comment.trim();
    const answer = await api.call("POST /api/feedback", {
      body: {
        session_id: sessionId,
        message_seq: draft.seq,
        rating: draft.rating,
        ...(comment ? { comment } : {}),
      },
    });
    if (!generations.isCurrent("send", ticket)) return;
    if (!answer.ok) {
      setState("draft", { sending: false, error: `Your feedback was not recorded: ${answer.error.message}` });
      return;
    }
    setState("recorded", draft.seq, { rating: draft.rating, comment });
    setState("draft", null);
  }

  function dispatch(action: FeedbackAction): Promise<void> {
    switch (action.type) {
      case "load":
        // Another conversation: what was sent for the last one no longer applies here.
        generations.next("send");
        setState({ sessionId: action.sessionId, recorded: {}, draft: null });
        return Promise.resolve();
      case "choose":
        generations.next("send");
        setState("draft", { seq: action.seq, rating: action.rating, comment: "", sending: false, error: "" });
        return Promise.resolve();
      case "comment":
        if (state.draft) setState("draft", "comment", action.text);
        return Promise.resolve();
      case "send":
        return send();
      case "cancel":
        generations.next("send");
        setState("draft", null);
        return Promise.resolve();
    }
  }

  return { state, dispatch, dispose: () => generations.invalidateAll() };
}

export type FeedbackController = ReturnType<typeof createFeedbackController>;
