import type { ChatEvent, SessionEntry } from "../api/endpoints.js";

/** What the conversation pane shows, in order. */
export type ChatItem =
  | { kind: "user"; key: string; text: string }
  | {
      kind: "assistant";
      key: string;
      text: string;
      streaming: boolean;
      stopped?: boolean;
      /** The conversation entry the reply is stored as: what its certificate names. */
      seq?: number;
    }
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
  | {
      kind: "notice";
      key: string;
      level: "error" | "info";
      text: string;
      /** A failed turn's message, which Retry sends again in the same conversation. */
      retry?: string;
    };

type Done = Extract<ChatEvent, { type: "done" }>;

/** A stored conversation (GET /api/sessions/:id) as items, shown as the live turn showed them. */
export function itemsFromEntries(entries: SessionEntry[]): ChatItem[] {
  return entries.flatMap((entry): ChatItem[] => {
    const key = `e${entry.seq}`;
    const meta = entry.meta;
    const stopReason = typeof meta.stop_reason === "string" ? meta.stop_reason : undefined;
    if (entry.role === "user") return [{ kind: "user", key, text: entry.content }];
    if (entry.role === "assistant") {
      const answer: ChatItem = {
        kind: "assistant",
        key,
        text: entry.content,
        streaming: false,
        seq: entry.seq,
      };
      const notice = isStopReason(stopReason) ? endNotice({ stopReason }) : undefined;
      return notice ? [answer, { kind: "notice", key: `${key}n`, ...notice }] : [answer];
    }
    if (entry.role === "tool")
      return [
        {
          kind: "tool",
          key,
          tool: typeof meta.tool === "string" ? meta.tool : "tool",
          isError: meta.is_error === true,
          content: entry.content,
          ...(typeof meta.outcome === "string" ? { outcome: meta.outcome } : {}),
          ...(typeof meta.args === "string" ? { args: meta.args } : {}),
          ...(typeof meta.duration_ms === "number" ? { durationMs: meta.duration_ms } : {}),
        },
      ];
    if (stopReason === "aborted") return stoppedTurn(key, entry.content);
    const asked = retryable(typeof meta.failure === "string" ? meta.failure : undefined)
      ? entries.findLast((e) => e.role === "user" && e.seq < entry.seq)?.content
      : undefined;
    return [{ kind: "notice", key, level: "error", text: entry.content, ...(asked ? { retry: asked } : {}) }];
  });
}

/**
 * Whether sending the same message again may help: not after a refusal (a spend cap, the soul guard) or a model
 * the host has not set up, which stay until someone changes something.
 */
function retryable(failure: string | undefined): boolean {
  return failure !== "refused" && failure !== "model_setup";
}

/** The text of the last message the user sent, for a Retry of the turn that answers it. */
function lastAsked(items: ChatItem[]): string | undefined {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item?.kind === "user") return item.text;
  }
  return undefined;
}

/**
 * A turn the user stopped, as the warden stores it (src/warden/chat-core.ts): an error entry marked
 * `stop_reason: "aborted"` whose content is what was written so far, a blank line, and how it ended. Shown as
 * the live turn was: the partial answer, marked stopped, then the same "Stopped" notice.
 */
function stoppedTurn(key: string, content: string): ChatItem[] {
  const cut = content.lastIndexOf("\n\n");
  const text = cut >= 0 ? content.slice(0, cut) : "";
  const said = endNotice({ stopReason: "aborted" });
  const notice: ChatItem[] = said ? [{ kind: "notice", key: `${key}n`, ...said }] : [];
  return text.trim()
    ? [{ kind: "assistant", key, text, streaming: false, stopped: true }, ...notice]
    : notice;
}

const STOP_REASONS = ["stop", "length", "max_steps", "aborted", "error"] as const;
const isStopReason = (value: string | undefined): value is Done["stopReason"] =>
  (STOP_REASONS as readonly (string | undefined)[]).includes(value);

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
    if (streaming) {
      streaming.streaming = false;
      if (event.stopReason === "aborted") streaming.stopped = true;
    }
    // A client that missed the deltas still shows the whole answer.
    else if (event.text && !sawAnswerSince(items)) {
      items.push({ kind: "assistant", key: key(), text: event.text, streaming: false });
    }
    const notice = endNotice(event);
    const asked = event.stopReason === "error" && retryable(event.failure) ? lastAsked(items) : undefined;
    if (notice) items.push({ kind: "notice", key: key(), ...notice, ...(asked ? { retry: asked } : {}) });
  }
}

/** The last turn's reply, given the conversation entry it was stored as (known once its certificate is). */
export function markStoredReply(items: ChatItem[], seq: number): void {
  for (let i = items.length - 1; i >= 0; i--) {
    const item = items[i];
    if (item?.kind === "user") return;
    if (item?.kind === "assistant") {
      item.seq = seq;
      return;
    }
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
export function endNotice(
  done: Pick<Done, "stopReason"> & Partial<Pick<Done, "error">>,
): { level: "error" | "info"; text: string } | undefined {
  if (done.stopReason === "aborted")
    return { level: "info", text: "Stopped. Send another message to go on." };
  if (done.error) return { level: "error", text: done.error };
  if (done.stopReason === "length")
    return { level: "info", text: "The answer was cut off at the model's length limit: ask it to continue." };
  if (done.stopReason === "max_steps")
    return { level: "info", text: "The agent stopped at its step limit: send “continue” to let it go on." };
  return undefined;
}
