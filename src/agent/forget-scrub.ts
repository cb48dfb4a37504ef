import { type ForgetMatcher, unitsOf } from "../memory/index.js";
import type { ChatMessage } from "../providers/index.js";
import type { AgentDatabase } from "./agent-db.js";

/** What replaces a forgotten passage in text that must keep its shape (a conversation, an audit row). */
export const FORGOTTEN = "[forgotten]";

/** The text with every unit (paragraph, list item, block) the matcher accepts replaced by `[forgotten]`. */
export function redactText(text: string, matches: ForgetMatcher): string {
  if (!matches(text)) return text;
  const lines = text.split("\n");
  const units = unitsOf(lines);
  let changed = false;
  for (const unit of [...units].reverse()) {
    if (!matches(lines.slice(unit.start, unit.end + 1).join("\n"))) continue;
    lines.splice(unit.start, unit.end - unit.start + 1, FORGOTTEN);
    changed = true;
  }
  // The words may be spread over several units: then the whole text is what said it.
  return changed && !matches(lines.join("\n")) ? lines.join("\n") : FORGOTTEN;
}

/**
 * A conversation without the forgotten text: message contents are redacted; a tool call whose arguments held
 * it keeps its id and name (the conversation must stay valid to continue) with arguments that say so.
 */
export function redactMessages(messages: readonly ChatMessage[], matches: ForgetMatcher): ChatMessage[] {
  return messages.map((m): ChatMessage => {
    if (m.role !== "assistant") return { ...m, content: redactText(m.content, matches) };
    return {
      ...m,
      content: redactText(m.content, matches),
      toolCalls: m.toolCalls.map((c) =>
        matches(jsonText(c.arguments)) ? { ...c, arguments: JSON.stringify({ forgotten: true }) } : c,
      ),
    };
  });
}

/**
 * Removes forgotten text from the runtime's own tables, which hold copies of what was said: stored
 * conversations, tool-call arguments and results in the audit trail, recalled passages and pending promotion
 * proposals.
 * Returns how many rows changed.
 */
export function scrubAgentTables(db: AgentDatabase, matches: ForgetMatcher): number {
  return db.transaction(() => {
    let changed = 0;
    const sessions = db
      .prepare<[], { session_id: string; messages: string }>(
        "SELECT session_id, messages FROM agent_sessions",
      )
      .all();
    const saveSession = db.prepare<[string, string]>(
      "UPDATE agent_sessions SET messages = ? WHERE session_id = ?",
    );
    for (const row of sessions) {
      let messages: ChatMessage[];
      try {
        messages = JSON.parse(row.messages) as ChatMessage[];
      } catch {
        // Unreadable history (loading it fails the session with a clear error anyway): match it as text.
        if (matches(row.messages)) saveSession.run("[]", row.session_id);
        continue;
      }
      const redacted = JSON.stringify(redactMessages(messages, matches));
      if (redacted === row.messages) continue;
      saveSession.run(redacted, row.session_id);
      changed++;
    }
    const calls = db
      .prepare<[], { id: string; args: string; summary: string }>(
        "SELECT id, args, summary FROM audit_tool_calls",
      )
      .all();
    const saveCall = db.prepare<[string, string, string]>(
      "UPDATE audit_tool_calls SET args = ?, summary = ? WHERE id = ?",
    );
    for (const row of calls) {
      const argsMatch = matches(jsonText(row.args));
      if (!argsMatch && !matches(row.summary)) continue;
      const args = argsMatch ? JSON.stringify({ forgotten: true }) : row.args;
      saveCall.run(args, redactText(row.summary, matches), row.id);
      changed++;
    }
    const uses = db
      .prepare<[], { chunk_id: string; session_id: string; text: string; headings: string }>(
        "SELECT chunk_id, session_id, text, headings FROM agent_recall_uses",
      )
      .all();
    const dropUse = db.prepare<[string, string]>(
      "DELETE FROM agent_recall_uses WHERE chunk_id = ? AND session_id = ?",
    );
    for (const row of uses) {
      if (!matches(row.text) && !matches(row.headings)) continue;
      dropUse.run(row.chunk_id, row.session_id);
      changed++;
    }
    const proposals = db
      .prepare<[], { id: string; text: string; headings: string }>(
        "SELECT id, text, headings FROM agent_promotions WHERE status = 'pending'",
      )
      .all();
    const drop = db.prepare<[string]>("DELETE FROM agent_promotions WHERE id = ?");
    for (const row of proposals) {
      if (!matches(row.text) && !matches(row.headings)) continue;
      drop.run(row.id);
      changed++;
    }
    return changed;
  });
}

/** The string values of a JSON text (escapes decoded, so `\n` does not glue words together), else the text. */
export function jsonText(raw: string): string {
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch {
    return raw;
  }
  const parts: string[] = [];
  const walk = (v: unknown): void => {
    if (typeof v === "string") parts.push(v);
    else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === "object") Object.values(v).forEach(walk);
  };
  walk(value);
  return parts.join("\n");
}
