import type { ChatEvent, SessionEntry } from "../api/endpoints.js";

/** What the conversation pane shows, in order. */
export type ChatItem =
  | { kind: "user"; key: string; text: string }
  | { kind: "assistant"; key: string; text: string; streaming: boolean }
  | {
      kind: "tool";
      key: string;
      tool: string;
      args?: string;
      outcome?: string;
      isError: boolean;
      durationMs?: number;
      content: string;
    }
  | { kind: "notice"; key: string; level: "error" | "info"; text: string };

type Done = Extract<ChatEvent, { type: "done" }>;

/** A stored conversation (GET /api/sessions/:id) as items. */
export function itemsFromEntries(entries: SessionEntry[]): ChatItem[] {
  return entries.map((entry): ChatItem => {
    const key = `e${entry.seq}`;
    const meta = entry.meta;
    if (entry.role === "user") return { kind: "user", key, text: entry.content };
    if (entry.role === "assistant") return { kind: "assistant", key, text: entry.content, streaming: false };
    if (entry.role === "tool")
      return {
        kind: "tool",
        key,
        tool: typeof meta.tool === "string" ? meta.tool : "tool",
        isError: meta.is_error === true,
        content: entry.content,
        ...(typeof meta.outcome === "string" ? { outcome: meta.outcome } : {}),
        ...(typeof meta.args === "string" ? { args: meta.args } : {}),
        ...(typeof meta.duration_ms === "number" ? { durationMs: meta.duration_ms } : {}),
      };
    // A turn the user stopped is recorded as an error entry; it was what they asked for.
    return {
      kind: "notice",
      key,
      level: meta.stop_reason === "aborted" ? "info" : "error",
      text: entry.content,
    };
  });
}

/**
 * Applies one event of the running turn to the items (inside a store `produce`). Text between tool calls is
 * one message: a tool row ends it, and the next delta starts another.
 */
export function applyTurnEvent(items: ChatItem[], event: ChatEvent, key: () => string): void {
  const last = items.at(-1);
  const streaming = last?.kind === "assistant" && last.streaming ? last : undefined;
  if (event.type === "delta") {
    if (streaming) streaming.text += event.text;
    else items.push({ kind: "assistant", key: key(), text: event.text, streaming: true });
  } else if (event.type === "tool") {
    if (streaming) streaming.streaming = false;
    items.push({
      kind: "tool",
      key: key(),
      tool: event.tool,
      isError: event.isError,
      content: event.content,
      ...(event.outcome ? { outcome: event.outcome } : {}),
      ...(event.args !== undefined ? { args: event.args } : {}),
      ...(event.durationMs !== undefined ? { durationMs: event.durationMs } : {}),
    });
  } else if (event.type === "done") {
    if (streaming) streaming.streaming = false;
    // A client that missed the deltas still shows the whole answer.
    else if (event.text && !sawAnswerSince(items)) {
      items.push({ kind: "assistant", key: key(), text: event.text, streaming: false });
    }
    const notice = endNotice(event);
    if (notice) items.push({ kind: "notice", key: key(), ...notice });
  }
}

function sawAnswerSince(items: ChatItem[]): boolean {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item?.kind === "user") return false;
    if (item?.kind === "assistant") return true;
  }
  return false;
}

/** What the user should know about how a turn ended, plainly, with what to do. */
export function endNotice(done: Done): { level: "error" | "info"; text: string } | undefined {
  if (done.stopReason === "aborted")
    return { level: "info", text: "Stopped. Send another message to go on." };
  if (done.error) return { level: "error", text: done.error };
  if (done.stopReason === "length")
    return { level: "info", text: "The answer was cut off at the model's length limit: ask it to continue." };
  if (done.stopReason === "max_steps")
    return { level: "info", text: "The agent stopped at its step limit: send “continue” to let it go on." };
  return undefined;
}
