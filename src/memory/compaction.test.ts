import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  loadTestEmbedder,
  makeTempBrain,
  openInspector,
  type TempBrain,
} from "../../test/support/memory-fixtures.js";
import { createLogger, sha256Hex } from "../core/index.js";
import { BrainMemory } from "./brain-memory.js";
import { initBrain } from "./brain-starter.js";
import { messageRef } from "./compaction.js";
import { estimateMessageTokens, estimateTokens, selectSlice } from "./compaction-budget.js";
import type { BuiltinEmbedder } from "./embedders/builtin-embedder.js";

let embedder: BuiltinEmbedder;
beforeAll(async () => {
  embedder = await loadTestEmbedder();
});

let temp: TempBrain;
let memory: BrainMemory;
afterEach(async () => {
  await memory?.close();
  await temp?.cleanup();
});

async function open() {
  temp = await makeTempBrain();
  await initBrain(temp.brain.root);
  memory = await BrainMemory.open(temp.brain.root, {
    embedder,
    logger: createLogger("t", { level: "silent" }),
  });
  return memory;
}

type Message = Parameters<typeof estimateMessageTokens>[0];

/** A system prompt and `n` alternating user/assistant messages of 100 estimated tokens each. */
const conversation = (n: number): Message[] => [
  { role: "system", content: "You are helpful." },
  ...Array.from({ length: n }, (_, i): Message => {
    // 96 tokens of text + 4 of framing: "Message NN …" padded to 384 bytes.
    const content = `Message ${String(i + 1).padStart(2, "0")} about the Lisbon trip: `.padEnd(
      384,
      "flights hotels trams ",
    );
    return i % 2 === 0 ? { role: "user", content } : { role: "assistant", content, toolCalls: [] };
  }),
];

const policy = { contextTokens: 1000, reserveTokens: 200, keepRecent: 2 };

describe("token budget", () => {
  it("estimates bytes / 4 plus framing, counting tool calls and names", () => {
    expect(estimateMessageTokens({ role: "user", content: "x".repeat(400) })).toBe(104);
    // Two-byte characters count double: 200 × "é" is 400 bytes.
    expect(estimateMessageTokens({ role: "user", content: "é".repeat(200) })).toBe(104);
    const call = { id: "c1", name: "file", arguments: '{"action":"read","path":"a.md"}' };
    expect(estimateMessageTokens({ role: "assistant", content: "", toolCalls: [call] })).toBe(
      Math.ceil((4 + call.arguments.length) / 4) + 8,
    );
    expect(estimateTokens(conversation(3))).toBe(estimateMessageTokens(conversation(0)[0] as Message) + 300);
  });

  it("selects nothing under the threshold, then the oldest non-system slice", () => {
    expect(selectSlice(conversation(7), policy)).toBeUndefined();
    // 808 tokens ≥ 800: evict from the first message until at most half the threshold (400) is left.
    expect(selectSlice(conversation(8), policy)).toMatchObject({ start: 1, end: 6, sliceTokens: 500 });
  });

  it("never touches the newest messages", () => {
    const slice = selectSlice(conversation(8), { ...policy, keepRecent: 6, targetShare: 0.1 });
    expect(slice).toMatchObject({ start: 1, end: 3 });
  });

  it("scales its estimates to the usage the model reported", () => {
    // Reported: twice the estimate. The threshold is crossed earlier and each message weighs double.
    const messages = conversation(4);
    const reported = 2 * estimateTokens(messages);
    expect(selectSlice(messages, policy)).toBeUndefined();
    const slice = selectSlice(messages, { ...policy, keepRecent: 1 }, reported);
    expect(slice).toMatchObject({ start: 1, end: 4, usage: reported, sliceTokens: 600 });
  });

  it("keeps an assistant's tool calls and their results on the same side of the cut", () => {
    const call = (id: string) => ({ id, name: "file", arguments: "{}" });
    const big = "x".repeat(1600);
    const messages: Message[] = [
      { role: "system", content: "prompt" },
      { role: "user", content: big },
      { role: "assistant", content: "", toolCalls: [call("a"), call("b")] },
      { role: "tool", toolCallId: "a", name: "file", content: big, isError: false },
      { role: "tool", toolCallId: "b", name: "file", content: "short", isError: false },
      { role: "user", content: "next" },
      { role: "assistant", content: "done", toolCalls: [] },
    ];
    // The goal is reached after the first result; its sibling result goes along.
    expect(selectSlice(messages, { contextTokens: 800, reserveTokens: 0, keepRecent: 2 })).toMatchObject({
      start: 1,
      end: 5,
    });
    // With the sibling among the newest kept messages, the whole exchange stays instead.
    expect(selectSlice(messages, { contextTokens: 800, reserveTokens: 0, keepRecent: 3 })).toMatchObject({
      start: 1,
      end: 2,
    });
  });

  it("refuses a bad policy or usage, naming the field", () => {
    expect(() => selectSlice([], { contextTokens: 100, reserveTokens: 100 })).toThrow(
      /policy\.reserveTokens/,
    );
    expect(() => selectSlice([], { contextTokens: 0, reserveTokens: 0 })).toThrow(/policy\.contextTokens/);
    expect(() => selectSlice([], { ...policy, targetShare: 1 })).toThrow(/policy\.targetShare/);
    expect(() => selectSlice([], policy, Number.NaN)).toThrow(/usage/);
  });
});

describe("pre-compaction flush", () => {
  it("summarises the oldest slice into memory.md, records it, and returns the trimmed context", async () => {
    const m = await open();
    const messages = conversation(10);
    let seen: readonly Message[] = [];
    const outcome = await m.compact({
      sessionId: "s-42",
      messages,
      policy,
      now: new Date("2026-06-01T12:00:00Z"),
      summarise: async (slice) => {
        seen = slice;
        return "Planned a Lisbon trip: flights booked, hotel in Alfama, tram 28 pass.";
      },
    });
    expect(outcome.status).toBe("compacted");
    if (outcome.status !== "compacted") return;
    expect(seen).toEqual(messages.slice(1, 8));
    expect(outcome.messages).toEqual([
      messages[0],
      { role: "system", content: expect.stringContaining("Planned a Lisbon trip") },
      ...messages.slice(8),
    ]);
    expect(outcome.usageAfter).toBeLessThan(outcome.usageBefore);
    const summary = "Planned a Lisbon trip: flights booked, hotel in Alfama, tram 28 pass.";
    expect(outcome.record).toMatchObject({
      sessionId: "s-42",
      firstMessage: messageRef(messages[1] as Message),
      lastMessage: messageRef(messages[7] as Message),
      messageCount: 7,
      tokenCount: 700,
      summaryHash: sha256Hex(summary),
      affectedDocs: ["memory.md"],
    });
    expect(m.compactions.list("s-42")).toEqual([outcome.record]);
    const text = await readFile(join(temp.brain.root, "memory.md"), "utf8");
    expect(text).toContain(
      `## Session summary 2026-06-01 12:00 UTC\n\n${summary}\n\n_Compacted from session s-42: 7 messages, ` +
        `${outcome.record.firstMessage.slice(0, 12)} to ${outcome.record.lastMessage.slice(0, 12)}._\n`,
    );
    const hits = await m.recall("where are we staying in Lisbon", { topK: 1 });
    expect(hits[0]?.text).toContain("Alfama");
  });

  it("does nothing below the threshold", async () => {
    const m = await open();
    const outcome = await m.compact({
      sessionId: "s",
      messages: conversation(3),
      policy,
      summarise: async () => "x",
    });
    expect(outcome).toMatchObject({
      status: "not-needed",
      usage: estimateTokens(conversation(3)),
    });
  });

  it("never loses the slice when the summariser throws or returns nothing", async () => {
    const m = await open();
    const messages = conversation(10);
    const before = await readFile(join(temp.brain.root, "memory.md"), "utf8");
    for (const summarise of [
      async () => {
        throw new Error("model overloaded");
      },
      async () => "   ",
    ]) {
      const outcome = await m.compact({ sessionId: "s", messages, policy, summarise });
      expect(outcome.status).toBe("failed");
      expect(outcome.messages).toBe(messages);
      if (outcome.status === "failed") expect(outcome.stage).toBe("summarise");
    }
    expect(await readFile(join(temp.brain.root, "memory.md"), "utf8")).toBe(before);
    expect(m.compactions.list()).toEqual([]);
  });

  it("keeps the slice when the record cannot be written", async () => {
    const m = await open();
    const inspector = openInspector(m.store.file);
    inspector.exec(
      "CREATE TRIGGER no_records BEFORE INSERT ON compactions BEGIN SELECT RAISE(ABORT, 'db full'); END",
    );
    inspector.close();
    const messages = conversation(10);
    const outcome = await m.compact({ sessionId: "s", messages, policy, summarise: async () => "summary" });
    expect(outcome).toMatchObject({ status: "failed", stage: "record", error: "db full" });
    expect(outcome.messages).toBe(messages);
  });
});
