import type Database from "better-sqlite3";
import type { ChatMessage } from "../providers/index.js";

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

  constructor(db: Database.Database) {
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
      messages: JSON.parse(row.messages) as ChatMessage[],
      turns: row.turns,
      updatedAt: row.updated_at,
    };
  }

  save(sessionId: string, agent: string, messages: ChatMessage[]): void {
    this.write.run(sessionId, agent, JSON.stringify(messages), new Date().toISOString());
  }
}
