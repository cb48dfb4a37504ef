import type Database from "better-sqlite3";
import { newId } from "../../core/index.js";
import type { ForgetMatcher } from "../../memory/index.js";
import { scrubConversations } from "./conversation-scrub.js";
import { titleOf } from "./conversation-title.js";

export interface Conversation {
  id: string;
  userId: string;
  title: string;
  agent: string | null;
  channel: string;
  createdAt: string;
  updatedAt: string;
  turns: number;
}

export type EntryRole = "user" | "assistant" | "tool" | "error";

export interface ConversationEntry {
  seq: number;
  role: EntryRole;
  content: string;
  meta: Record<string, unknown>;
  at: string;
}

export function migrateConversationTables(db: Database.Database): void {
  db.exec(`
CREATE TABLE IF NOT EXISTS conversations (
  id TEXT PRIMARY KEY,
  user_id TEXT NOT NULL REFERENCES warden_users(id) ON DELETE CASCADE,
  title TEXT NOT NULL,
  agent TEXT,
  channel TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  turns INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS conversations_by_user ON conversations(user_id, updated_at);
CREATE TABLE IF NOT EXISTS conversation_entries (
  conversation_id TEXT NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
  seq INTEGER NOT NULL,
  role TEXT NOT NULL,
  content TEXT NOT NULL,
  meta TEXT NOT NULL,
  at TEXT NOT NULL,
  PRIMARY KEY (conversation_id, seq)
) WITHOUT ROWID;
`);
}

interface ConversationRow {
  id: string;
  user_id: string;
  title: string;
  agent: string | null;
  channel: string;
  created_at: string;
  updated_at: string;
  turns: number;
}

const toConversation = (r: ConversationRow): Conversation => ({
  id: r.id,
  userId: r.user_id,
  title: r.title,
  agent: r.agent,
  channel: r.channel,
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  turns: r.turns,
});

/**
 * The warden's record of every conversation as the user saw it: what they wrote, the answers, the tools that
 * ran. The model-facing history (tool calls, compaction) lives in the user's brain; this is what the API and
 * the UI list and show, and it is written as the turn happens, so a daemon killed mid-turn keeps the question.
 */
export class ConversationStore {
  constructor(private readonly db: Database.Database) {}

  create(userId: string, options: { agent?: string; channel: string; title?: string }): Conversation {
    const now = new Date().toISOString();
    const row: ConversationRow = {
      id: newId(),
      user_id: userId,
      title: options.title ?? "",
      agent: options.agent ?? null,
      channel: options.channel,
      created_at: now,
      updated_at: now,
      turns: 0,
    };
    this.db
      .prepare(
        `INSERT INTO conversations (id, user_id, title, agent, channel, created_at, updated_at, turns)
         VALUES (@id, @user_id, @title, @agent, @channel, @created_at, @updated_at, @turns)`,
      )
      .run(row);
    return toConversation(row);
  }

  /** The user's conversation, or undefined (also when it belongs to someone else). */
  get(userId: string, id: string): Conversation | undefined {
    const row = this.db
      .prepare<[string, string], ConversationRow>("SELECT * FROM conversations WHERE id = ? AND user_id = ?")
      .get(id, userId);
    return row ? toConversation(row) : undefined;
  }

  list(userId: string, limit = 100): Conversation[] {
    return this.db
      .prepare<[string, number], ConversationRow>(
        "SELECT * FROM conversations WHERE user_id = ? ORDER BY updated_at DESC, id DESC LIMIT ?",
      )
      .all(userId, limit)
      .map(toConversation);
  }

  rename(userId: string, id: string, title: string): boolean {
    return (
      this.db
        .prepare("UPDATE conversations SET title = ? WHERE id = ? AND user_id = ?")
        .run(title, id, userId).changes === 1
    );
  }

  remove(userId: string, id: string): boolean {
    return (
      this.db.prepare("DELETE FROM conversations WHERE id = ? AND user_id = ?").run(id, userId).changes === 1
    );
  }

  /** Appends one entry; a user entry also counts a turn and titles an untitled conversation. */
  append(
    id: string,
    role: EntryRole,
    content: string,
    meta: Record<string, unknown> = {},
  ): ConversationEntry {
    const at = new Date().toISOString();
    return this.db.transaction(() => {
      const seq =
        (this.db
          .prepare<[string], { n: number | null }>(
            "SELECT MAX(seq) AS n FROM conversation_entries WHERE conversation_id = ?",
          )
          .get(id)?.n ?? -1) + 1;
      this.db
        .prepare(
          "INSERT INTO conversation_entries (conversation_id, seq, role, content, meta, at) VALUES (?, ?, ?, ?, ?, ?)",
        )
        .run(id, seq, role, content, JSON.stringify(meta), at);
      this.db
        .prepare(
          `UPDATE conversations SET updated_at = ?, turns = turns + ?,
             title = CASE WHEN title = '' AND ? = 'user' THEN ? ELSE title END WHERE id = ?`,
        )
        .run(at, role === "user" ? 1 : 0, role, titleOf(content), id);
      return { seq, role, content, meta, at };
    })();
  }

  /** See scrubConversations. */
  scrub(userId: string, matches: ForgetMatcher): number {
    return scrubConversations(this.db, userId, matches);
  }

  entries(id: string, options: { after?: number; limit?: number } = {}): ConversationEntry[] {
    return this.db
      .prepare<
        [string, number, number],
        { seq: number; role: EntryRole; content: string; meta: string; at: string }
      >(
        "SELECT seq, role, content, meta, at FROM conversation_entries WHERE conversation_id = ? AND seq > ? ORDER BY seq LIMIT ?",
      )
      .all(id, options.after ?? -1, options.limit ?? 10_000)
      .map((r) => ({ ...r, meta: JSON.parse(r.meta) as Record<string, unknown> }));
  }
}
