import type Database from "better-sqlite3";
import { jsonText, redactText } from "../../agent/index.js";
import type { MemoryForgotten } from "../../contracts/index.js";
import type { Logger } from "../../core/index.js";
import { type ForgetMatcher, scopeMatcher } from "../../memory/index.js";
import type { AuditStore } from "../audit-store.js";
import { titleOf } from "./conversation-title.js";

/**
 * A user's brain forgot something (the agent's memory tool, a job, the owner): the warden's record of what the
 * user saw loses it too, and its audit trail says how much changed, never what. The scope comes from the cell
 * and can only ever touch that user's own conversations.
 */
export function forgetInConversations(
  userId: string,
  notice: MemoryForgotten,
  parts: {
    conversations: { scrub(userId: string, matches: ForgetMatcher): number };
    audit: AuditStore;
    logger: Logger;
  },
): void {
  try {
    const entries = parts.conversations.scrub(userId, scopeMatcher(notice.scope));
    parts.audit.record({
      userId,
      actor: `cell:${userId}`,
      action: "memory.forgotten",
      detail: { places: notice.places, conversation_entries: entries },
    });
  } catch (error) {
    parts.logger.error(
      { err: error, user: userId },
      "forgotten text could not be removed from the conversation record",
    );
  }
}

/**
 * Drops forgotten text from every conversation of the user, as the brain does from its own copies: each
 * paragraph (or the whole entry, or title) that says it becomes `[forgotten]`, tool arguments that held it say
 * `{"forgotten":true}`. Old page images are then checkpointed out of the write-ahead log (host.db zeroes freed
 * space itself). Returns how many entries and titles changed.
 */
export function scrubConversations(db: Database.Database, userId: string, matches: ForgetMatcher): number {
  const changed = db.transaction(() => {
    let n = 0;
    const entries = db
      .prepare<
        [string],
        { conversation_id: string; seq: number; role: string; content: string; meta: string }
      >(
        `SELECT e.conversation_id, e.seq, e.role, e.content, e.meta FROM conversation_entries e
         JOIN conversations c ON c.id = e.conversation_id WHERE c.user_id = ? ORDER BY e.conversation_id, e.seq`,
      )
      .all(userId);
    const saveEntry = db.prepare<[string, string, string, number]>(
      "UPDATE conversation_entries SET content = ?, meta = ? WHERE conversation_id = ? AND seq = ?",
    );
    // The questions that lost text, as they were: a title made from one must be made again.
    const originals = new Map<string, string>();
    for (const e of entries) {
      const content = redactText(e.content, matches);
      const meta = redactMeta(e.meta, matches);
      if (content === e.content && meta === e.meta) continue;
      saveEntry.run(content, meta, e.conversation_id, e.seq);
      if (e.role === "user" && !originals.has(e.conversation_id)) originals.set(e.conversation_id, e.content);
      n++;
    }
    // A title is the first line of the first question, cut short: when that question lost the text, the
    // title is made again from what is left, since the cut may have split the words a query names.
    const firstQuestion = db
      .prepare<[string], string>(
        `SELECT content FROM conversation_entries WHERE conversation_id = ? AND role = 'user'
         ORDER BY seq LIMIT 1`,
      )
      .pluck();
    const titles = db
      .prepare<[string], { id: string; title: string }>(
        "SELECT id, title FROM conversations WHERE user_id = ?",
      )
      .all(userId);
    const saveTitle = db.prepare<[string, string]>("UPDATE conversations SET title = ? WHERE id = ?");
    for (const t of titles) {
      const question = originals.get(t.id);
      const title =
        question !== undefined && t.title === titleOf(question)
          ? titleOf(firstQuestion.get(t.id) ?? "")
          : redactText(t.title, matches);
      if (title === t.title) continue;
      saveTitle.run(title, t.id);
      n++;
    }
    return n;
  })();
  if (changed > 0) db.pragma("wal_checkpoint(TRUNCATE)");
  return changed;
}

/** A tool entry's arguments (raw JSON as the model sent them) lose the call's words when they held them. */
function redactMeta(raw: string, matches: ForgetMatcher): string {
  let meta: Record<string, unknown>;
  try {
    meta = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    return matches(raw) ? "{}" : raw;
  }
  if (typeof meta.args !== "string" || !matches(jsonText(meta.args))) return raw;
  return JSON.stringify({ ...meta, args: JSON.stringify({ forgotten: true }) });
}
