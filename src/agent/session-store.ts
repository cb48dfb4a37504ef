import type Database from "better-sqlite3";
import { chatMessageSchema } from "../contracts/index.js";
import type { ChatMessage } from "../providers/index.js";
import type { AgentDatabase } from "./agent-db.js";

export interface StoredSession {
  sessionId: string;
  agent: string;
  messages: ChatMessage[];
  turns: number;
  updatedAt: string;
}

/**
 * Conversations as the model sees them (tool calls included, after compaction), kept in the brain database so
 * a session survives a cell restart, a daemon restart and a move of the brain to another host. One row per
 * session, replaced after each turn in one statement: a crash leaves the previous complete turn.
 */
export class SessionStore {
  private readonly read: Database.Statement<
    [string],
    { agent: string; messages: string; turns: number; updated_at: string }
  >;
  private readonly write: Database.Statement<[string, string, string, string]>;

  constructor(db: AgentDatabase) {
    this.read = db.prepare(
      "SELECT agent, messages, turns, updated_at FROM agent_sessions WHERE session_id = ?",
    );
    this.write = db.prepare(
      `INSERT INTO agent_sessions (session_id, agent, messages, turns, updated_at) VALUES (?, ?, ?, 1, ?)
       ON CONFLICT (session_id) DO UPDATE SET agent = excluded.agent, messages = excluded.messages,
         turns = agent_sessions.turns + 1, updated_at = excluded.updated_at`,
    );
  }

  load(sessionId: string): StoredSession | undefined {
    const row = this.read.get(sessionId);
    if (!row) return undefined;
    return {
      sessionId,
      agent: row.agent,
      messages: parseMessages(sessionId, row.messages),
      turns: row.turns,
      updatedAt: row.updated_at,
    };
  }

  save(sessionId: string, agent: string, messages: ChatMessage[]): void {
    this.write.run(sessionId, agent, JSON.stringify(messages), new Date().toISOString());
  }
}

const storedMessages = chatMessageSchema.array();

/**
 * The stored conversation, checked against the message contract: the brain is user data that may have been
 * edited or written by an older build, and a malformed history sent to a provider fails the turn obscurely.
 */
function parseMessages(sessionId: string, json: string): ChatMessage[] {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch (cause) {
    throw new TypeError(`agent_sessions.messages of session ${sessionId} is not JSON`, { cause });
  }
  const parsed = storedMessages.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new TypeError(
      `agent_sessions.messages of session ${sessionId} at ${issue?.path.join(".") || "$"}: ${issue?.message}`,
    );
  }
  return parsed.data;
}
