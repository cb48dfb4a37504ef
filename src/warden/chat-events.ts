import type { TokenUsage, TurnFailure } from "../contracts/index.js";
import type { ConversationNotice } from "./conversations/index.js";

/**
 * What one chat turn looks like to anything outside the cell (HTTP, WebSocket, channels), in order: `session`
 * once, then deltas and tool results as they happen, then exactly one `done`.
 */
export type ChatEvent =
  | { type: "session"; sessionId: string; agent?: string }
  | { type: "delta"; text: string }
  | {
      type: "tool";
      callId: string;
      tool: string;
      isError: boolean;
      outcome?: string;
      content: string;
      /** The call's arguments as the model sent them (raw JSON, possibly cut) and its duration. */
      args?: string;
      durationMs?: number;
    }
  | {
      type: "done";
      text: string;
      usage: TokenUsage;
      stopReason: "stop" | "length" | "max_steps" | "aborted" | "error";
      /** Set when the turn failed: a sentence the user can act on (the model refused, the cell is halted…). */
      error?: string;
      /** Set with `error`: what kind of failure, for front doors that answer with a status. */
      failure?: TurnFailure;
    };

export interface ChatTurnInput {
  userId: string;
  /** An existing conversation of this user; a new one is created when absent. */
  sessionId?: string;
  text: string;
  /** An agent profile of the user's brain; the brain's default when absent. */
  agent?: string;
  /** Where the turn came from: `api`, `ws`, `openai`, `telegram:<bot>`… (kept with the conversation). */
  channel: string;
  signal?: AbortSignal;
  /**
   * The conversation so far as a stateless client holds it (the OpenAI-compatible endpoint); the agent uses
   * it only for a session it has no history of.
   */
  history?: { role: "user" | "assistant"; content: string }[];
}

/** A cron job's report from a user's cell (seed 003 §8.2 step 4), for channels to relay. */
export interface JobNotice {
  userId: string;
  jobId: string;
  status: "succeeded" | "failed";
  resultRef?: string;
  error?: string;
}

/**
 * A message added to a user's conversation outside any turn (a command run's progress or final reply), for the
 * front doors that relay it: a Telegram chat hears it where the conversation is.
 */
export interface ConversationPost extends ConversationNotice {
  userId: string;
  sessionId: string;
  /** The conversation's channel: `api`, `ws`, `openai`, `telegram:<bot>`… */
  channel: string;
  text: string;
}

/** The one way the warden's front doors (HTTP, WebSocket, OpenAI endpoint, channels) talk to a user's agent. */
export interface ChatService {
  turn(input: ChatTurnInput): AsyncIterable<ChatEvent>;
  onJobNotice(listener: (notice: JobNotice) => void): () => void;
  onConversationPost(listener: (post: ConversationPost) => void): () => void;
}
