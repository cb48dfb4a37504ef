import type { AgentInfo, Session } from "../api/endpoints.js";
import type { ConnectionState } from "../api/live-socket.js";
import type { ChatItem } from "./chat-items.js";

/** What the chat screen shows; the chat controller owns it. */
export interface ChatState {
  sessions: Session[];
  sessionId: string | null;
  items: ChatItem[];
  loading: boolean;
  agents: AgentInfo["agents"];
  agent: string;
  turn: { id: string; stopping: boolean } | null;
  connection: ConnectionState;
  connectionText: string;
  /** Why the conversation list or the agents could not load. */
  problem: string;
}
