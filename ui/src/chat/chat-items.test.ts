import { describe, expect, it } from "vitest";
import type { SessionEntry } from "../api/endpoints.js";
import { applyTurnEvent, type ChatItem, itemsFromEntries, markStoredReply } from "./chat-items.js";

const zero = { input_tokens: 0, output_tokens: 0 };
const entry = (seq: number, role: string, content: string, meta: Record<string, unknown> = {}) =>
  ({ seq, role, content, meta, at: "2026-03-01T10:00:00Z" }) as SessionEntry;
// A stored reply also names its conversation entry (seq), which a live one learns only from its certificate.
const shape = (items: ChatItem[]) => items.map(({ key: _key, ...rest }) => ({ ...rest, seq: undefined }));

/** What the page shows while a turn streams, event by event. */
function live(events: Parameters<typeof applyTurnEvent>[1][]): ChatItem[] {
  let n = 0;
  const items: ChatItem[] = [{ kind: "user", key: "u", text: "Tell me everything" }];
  for (const event of events) applyTurnEvent(items, event, () => `k${++n}`);
  return items;
}

describe("a stopped answer", () => {
  it("looks the same before and after a reload: the partial answer, marked stopped, then the same notice", () => {
    const before = live([
      { type: "delta", text: "Let me think about this " },
      { type: "delta", text: "at great length" },
      {
        type: "done",
        text: "Let me think about this at great length",
        usage: zero,
        stopReason: "aborted",
        error: "the call was aborted",
      },
    ]);
    // As src/warden/chat-core.ts records it: the written text, a blank line, how it ended; marked aborted.
    const after = itemsFromEntries([
      entry(0, "user", "Tell me everything"),
      entry(1, "error", "Let me think about this at great length\n\nthe call was aborted", {
        stop_reason: "aborted",
      }),
    ]);
    expect(shape(after)).toEqual(shape(before));
    expect(shape(after)).toEqual([
      { kind: "user", text: "Tell me everything" },
      { kind: "assistant", text: "Let me think about this at great length", streaming: false, stopped: true },
      { kind: "notice", level: "info", text: "Stopped. Send another message to go on." },
    ]);
  });

  it("stopped before any text shows only the notice, live and stored alike", () => {
    const before = live([
      { type: "done", text: "", usage: zero, stopReason: "aborted", error: "the call was aborted" },
    ]);
    const after = itemsFromEntries([
      entry(0, "user", "Tell me everything"),
      entry(1, "error", "the call was aborted", { stop_reason: "aborted" }),
    ]);
    expect(shape(after)).toEqual(shape(before));
  });

  it("an answer cut at the length limit says so after a reload too; a failure stays an error", () => {
    const before = live([
      { type: "delta", text: "Part one" },
      { type: "done", text: "Part one", usage: zero, stopReason: "length" },
    ]);
    const after = itemsFromEntries([
      entry(0, "user", "Tell me everything"),
      entry(1, "assistant", "Part one", { stop_reason: "length" }),
    ]);
    expect(shape(after)).toEqual(shape(before));
    const failed = itemsFromEntries([entry(0, "error", "the provider refused", { stop_reason: "error" })]);
    expect(shape(failed)).toEqual([{ kind: "notice", level: "error", text: "the provider refused" }]);
  });
});

describe("a reply's conversation entry", () => {
  it("is the stored entry's after a reload, and the last turn's reply learns it once certified", () => {
    const stored = itemsFromEntries([entry(0, "user", "hi"), entry(1, "assistant", "Hello.")]);
    expect(stored[1]).toMatchObject({ kind: "assistant", seq: 1 });

    const items = live([
      { type: "delta", text: "First part" },
      { type: "tool", callId: "c1", tool: "file", isError: false, content: "ok" },
      { type: "delta", text: "Second part" },
      { type: "done", text: "First partSecond part", usage: zero, stopReason: "stop" },
    ]);
    markStoredReply(items, 7);
    expect(items.filter((i) => i.kind === "assistant").map((i) => i.seq)).toEqual([undefined, 7]);
    // A turn that wrote no reply leaves the previous turn's reply as it was.
    items.push({ kind: "user", key: "u2", text: "again" });
    markStoredReply(items, 9);
    expect(items.filter((i) => i.kind === "assistant").map((i) => i.seq)).toEqual([undefined, 7]);
  });
});
