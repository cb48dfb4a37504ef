import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { createLogger, sha256Hex } from "../core/index.js";
import { BrainMemory } from "./brain-memory.js";
import { initBrain } from "./brain-starter.js";
import type { BuiltinEmbedder } from "./embedders/builtin-embedder.js";
import { loadTestEmbedder, makeTempBrain, type TempBrain } from "./test-support.js";
import { type ContextMessage, estimateTokens, selectSlice } from "./token-budget.js";

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

const conversation = (n: number): ContextMessage[] => [
  { id: "sys", role: "system", content: "You are helpful." },
  ...Array.from({ length: n }, (_, i) => ({
    id: `m${i + 1}`,
    role: (i % 2 === 0 ? "user" : "assistant") as ContextMessage["role"],
    content: `Message ${i + 1} about the Lisbon trip: ${"flights hotels trams ".repeat(10)}`,
    tokens: 100,
  })),
];

const policy = { limit: 1000, buffer: 200, keepRecent: 2 };

describe("token budget", () => {
  it("selects nothing under limit - buffer, then the oldest non-system slice", () => {
    expect(selectSlice(conversation(7), policy)).toBeUndefined();
    // 808 tokens ≥ 800: evict from m1 until at most half the threshold (400) is left: m1..m5.
    expect(selectSlice(conversation(8), policy)).toEqual({ start: 1, end: 6 });
  });

  it("never touches the newest messages", () => {
    const slice = selectSlice(conversation(8), { ...policy, keepRecent: 6, targetShare: 0.1 });
    expect(slice).toEqual({ start: 1, end: 3 });
  });

  it("estimates from bytes unless the provider reported tokens, and refuses a bad policy", () => {
    expect(estimateTokens({ id: "a", role: "user", content: "x".repeat(400) })).toBe(104);
    expect(estimateTokens({ id: "a", role: "user", content: "x", tokens: 7 })).toBe(7);
    expect(() => selectSlice([], { limit: 100, buffer: 100 })).toThrow(/policy\.buffer/);
  });
});

describe("pre-compaction flush", () => {
  it("summarises the oldest slice into memory.md, records it, and returns the trimmed context", async () => {
    const m = await open();
    const messages = conversation(10);
    let seen: readonly ContextMessage[] = [];
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
    expect(seen.map((s) => s.id)).toEqual(["m1", "m2", "m3", "m4", "m5", "m6", "m7"]);
    expect(outcome.messages.map((s) => s.id)).toEqual([
      "sys",
      `compaction:${outcome.record.id}`,
      "m8",
      "m9",
      "m10",
    ]);
    expect(outcome.usageAfter).toBeLessThan(outcome.usageBefore);
    const summary = "Planned a Lisbon trip: flights booked, hotel in Alfama, tram 28 pass.";
    expect(outcome.record).toMatchObject({
      sessionId: "s-42",
      firstMessage: "m1",
      lastMessage: "m7",
      messageCount: 7,
      tokenCount: 700,
      summaryHash: sha256Hex(summary),
      affectedDocs: ["memory.md"],
    });
    expect(m.compactions.list("s-42")).toEqual([outcome.record]);
    const text = await readFile(join(temp.brain.root, "memory.md"), "utf8");
    expect(text).toContain(
      `## Session summary 2026-06-01 12:00 UTC\n\n${summary}\n\n_Compacted from session s-42, messages m1 to m7._\n`,
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
      usage: 300 + estimateTokens(conversation(0)[0] as ContextMessage),
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
    m.store.db.exec(
      "CREATE TEMP TRIGGER no_records BEFORE INSERT ON compactions BEGIN SELECT RAISE(ABORT, 'db full'); END",
    );
    const messages = conversation(10);
    const outcome = await m.compact({ sessionId: "s", messages, policy, summarise: async () => "summary" });
    expect(outcome).toMatchObject({ status: "failed", stage: "record", error: "db full" });
    expect(outcome.messages).toBe(messages);
  });
});
