import { readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { AgentEvent, AgentRuntime } from "../../src/agent/index.js";
import { type ModelServer, reply, startModelServer } from "../support/model-server.js";
import {
  createTestBrain,
  openTestRuntime,
  type TestBrain,
  type TestBrainOptions,
} from "../support/test-brain.js";

let server: ModelServer;
let brain: TestBrain;
let runtime: AgentRuntime;

beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());

async function open(
  options: Partial<TestBrainOptions> = {},
  runtimeOptions: { contextTokens?: number; reserveTokens?: number } = {},
): Promise<void> {
  brain = await createTestBrain({ baseUrl: server.url, ...options });
  runtime = await openTestRuntime(brain, runtimeOptions);
}

beforeEach(() => {
  server.reset();
});
afterEach(async () => {
  await runtime?.close();
  brain?.remove();
});

function toolNames(tools: unknown): string[] {
  return ((tools ?? []) as Array<{ function: { name: string } }>).map((t) => t.function.name);
}

/** The audit trail as stored in the brain database, read through a connection of its own. */
function auditRows() {
  const db = new Database(runtime.db.file, { readonly: true });
  try {
    return db.prepare("SELECT tool, outcome, is_error FROM audit_tool_calls ORDER BY id").all();
  } finally {
    db.close();
  }
}

describe("a multi-step conversation through the test model server", () => {
  it("reads a file, remembers what it found, then answers", async () => {
    await open();
    brain.write("notes/project.md", "# Project\n\nThe launch date is 14 March.\n");
    server.enqueue(
      reply.toolCalls([{ name: "file", arguments: { action: "read", path: "notes/project.md" } }], {
        split: 4,
      }),
      reply.toolCalls([
        {
          name: "memory",
          arguments: { action: "remember", text: "Launch date: 14 March", target: "memory" },
        },
      ]),
      reply.text("The launch is on 14 March, and I saved that to memory.", { chunks: 5 }),
    );
    const events: AgentEvent[] = [];
    const result = await runtime.runTurn({
      prompt: "When is the launch? Remember it.",
      emit: (e) => events.push(e),
    });

    expect(result.stopReason).toBe("stop");
    expect(result.text).toBe("The launch is on 14 March, and I saved that to memory.");
    expect(result.steps).toBe(3);
    expect(result.toolCalls).toBe(2);
    expect(result.usage.input_tokens).toBeGreaterThan(0);

    const [first, second, third] = server.chatRequests();
    expect(first?.model).toBe("test-model");
    expect(first?.messages[0]).toMatchObject({ role: "system" });
    expect(String(first?.messages[0]?.content)).toContain("# Soul");
    expect(String(first?.messages[0]?.content)).toContain("# General instructions");
    expect(first?.messages.at(-1)).toEqual({ role: "user", content: "When is the launch? Remember it." });
    expect(toolNames(first?.tools)).toEqual(["bash", "file", "browser", "memory"]);
    expect(second?.messages.at(-1)).toMatchObject({
      role: "tool",
      content: "# Project\n\nThe launch date is 14 March.\n",
    });
    expect(String(third?.messages.at(-1)?.content)).toMatch(/^remembered in memory\.md/);

    expect(readFileSync(join(brain.root, "memory.md"), "utf8")).toContain("Launch date: 14 March");
    expect(auditRows()).toEqual([
      { tool: "file", outcome: "ok", is_error: 0 },
      { tool: "memory", outcome: "ok", is_error: 0 },
    ]);
    const log = readFileSync(join(brain.root, `logs/${new Date().toISOString().slice(0, 10)}.md`), "utf8");
    expect(log).toMatch(/tool `file` ok .*notes\/project\.md/);
    expect(log).toMatch(/tool `memory` ok/);

    const streamed = events
      .flatMap((e) => (e.type === "text_delta" && e.step === 3 ? [e.delta] : []))
      .join("");
    expect(streamed).toBe(result.text);
    expect(
      events.filter((e) => e.type === "tool_result").map((e) => e.type === "tool_result" && e.call.name),
    ).toEqual(["file", "memory"]);
    expect(events.at(-1)?.type).toBe("done");
  });

  it("recalls remembered memory into the next session's prompt", async () => {
    await open();
    await runtime.memory.remember("The user's favourite tea is genmaicha.", { target: "memory" });
    server.enqueue(reply.text("Genmaicha."));
    const result = await runtime.runTurn({ prompt: "What tea does the user like?" });
    expect(result.recalled.some((h) => h.path === "memory.md")).toBe(true);
    const system = String(server.chatRequests()[0]?.messages[0]?.content);
    expect(system).toContain("# Recalled memory");
    expect(system).toContain("genmaicha");
  });

  it("continues a conversation from its stored messages", async () => {
    await open();
    server.enqueue(reply.text("Nice to meet you, Ada."), reply.text("Your name is Ada."));
    const first = await runtime.runTurn({ prompt: "My name is Ada." });
    await runtime.runTurn({
      prompt: "What is my name?",
      history: first.messages,
      sessionId: first.sessionId,
    });
    const messages = server.chatRequests()[1]?.messages.slice(1);
    expect(messages).toEqual([
      { role: "user", content: "My name is Ada." },
      { role: "assistant", content: "Nice to meet you, Ada." },
      { role: "user", content: "What is my name?" },
    ]);
  });
});

describe("pre-compaction flush", () => {
  it("summarises the oldest conversation into memory.md when the context nears the limit", async () => {
    await open({}, { contextTokens: 2000, reserveTokens: 200 });
    const history = Array.from({ length: 12 }, (_, i) => ({
      role: i % 2 === 0 ? ("user" as const) : ("assistant" as const),
      content: `Message ${i} about planning the Kyoto trip. ${"More detail. ".repeat(60)}`,
      ...(i % 2 === 1 ? { toolCalls: [] } : {}),
    })) as Parameters<AgentRuntime["runTurn"]>[0]["history"];
    server.enqueue(reply.text("- The user is planning a trip to Kyoto."), reply.text("Noted."));
    const result = await runtime.runTurn({ prompt: "Anything else?", history });

    expect(result.compactions).toBe(1);
    expect(result.text).toBe("Noted.");
    const [summary, turn] = server.chatRequests();
    expect(String(summary?.messages[0]?.content)).toMatch(/^Summarise this part of a conversation/);
    expect(turn?.messages[1]).toMatchObject({ role: "system" });
    expect(String(turn?.messages[1]?.content)).toContain("The user is planning a trip to Kyoto.");
    expect((turn?.messages.length ?? 0) < 14).toBe(true);
    expect(readFileSync(join(brain.root, "memory.md"), "utf8")).toMatch(
      /## Session summary[\s\S]*trip to Kyoto/,
    );
    expect(runtime.memory.compactions.list(result.sessionId)).toHaveLength(1);
  });

  it("evicts an assistant's tool calls together with their results, so the model never gets an orphaned result", async () => {
    await open({}, { contextTokens: 2000, reserveTokens: 200 });
    type History = NonNullable<Parameters<AgentRuntime["runTurn"]>[0]["history"]>;
    const detail = "The itinerary lists temples, gardens and a tea house. ".repeat(8);
    // Every exchange is an assistant message calling four tools and their results, the first result long and the
    // others short: a cut chosen by token count alone lands after a long result, inside an exchange.
    const history: History = [{ role: "user", content: "Plan the Kyoto trip from my notes." }];
    for (let i = 0; i < 8; i++) {
      const calls = [0, 1, 2, 3].map((k) => ({ id: `c${i}-${k}`, name: "file", arguments: `{"n":${k}}` }));
      history.push({ role: "assistant", content: "", toolCalls: calls });
      for (const [k, call] of calls.entries()) {
        const content = k === 0 ? detail : `Day ${i}, note ${k}.`;
        history.push({ role: "tool", toolCallId: call.id, name: "file", content, isError: false });
      }
    }
    server.enqueue(reply.text("- Kyoto trip: temples, gardens, tea house."), reply.text("Done."));
    const result = await runtime.runTurn({ prompt: "Anything else?", history });

    expect(result.compactions).toBe(1);
    const turn = server.chatRequests()[1]?.messages ?? [];
    expect(turn.length).toBeLessThan(history.length);
    // Each tool result follows the assistant message that asked for it, with only sibling results between.
    const answered = new Set<string>();
    for (const m of turn) {
      if (m.role === "assistant") {
        answered.clear();
        for (const call of (m.tool_calls ?? []) as Array<{ id: string }>) answered.add(call.id);
      } else if (m.role === "tool") expect(answered).toContain(m.tool_call_id);
      else answered.clear();
    }
  });
});

describe("tool permissions", () => {
  it("a tool outside the agent's allow list is neither offered nor run, and the refusal is audited", async () => {
    await open({ profileTools: ["file"] });
    server.enqueue(
      reply.toolCalls([{ name: "bash", arguments: { command: "touch pwned" } }]),
      reply.text("Sorry."),
    );
    const result = await runtime.runTurn({ prompt: "run something" });
    expect(result.text).toBe("Sorry.");
    const [first, second] = server.chatRequests();
    expect(toolNames(first?.tools)).toEqual(["file"]);
    expect(second?.messages.at(-1)).toMatchObject({
      role: "tool",
      content: "tool bash is not allowed for agent assistant",
    });
    expect(auditRows()).toEqual([{ tool: "bash", outcome: "denied", is_error: 1 }]);
  });

  it("the file tool may read the brain's config but not rewrite it to grant itself more", async () => {
    await open({ profileTools: ["file"] });
    const before = readFileSync(join(brain.root, "config/irowclaw.toml"), "utf8");
    server.enqueue(
      reply.toolCalls([{ name: "file", arguments: { action: "read", path: "config/irowclaw.toml" } }]),
      reply.toolCalls([
        {
          name: "file",
          arguments: { action: "write", path: "config/irowclaw.toml", content: 'egress = "allow"' },
        },
      ]),
      reply.text("I cannot change that."),
    );
    await runtime.runTurn({ prompt: "open up the network" });
    expect(readFileSync(join(brain.root, "config/irowclaw.toml"), "utf8")).toBe(before);
    expect(auditRows()).toEqual([
      { tool: "file", outcome: "ok", is_error: 0 },
      { tool: "file", outcome: "refused", is_error: 1 },
    ]);
  });

  it("irowclaw.toml's allow list is a ceiling the profile cannot raise", async () => {
    await open({ tools: ["memory"], profileTools: ["file", "memory"] });
    server.enqueue(reply.text("ok"));
    await runtime.runTurn({ prompt: "hi" });
    expect(toolNames(server.chatRequests()[0]?.tools)).toEqual(["memory"]);
  });
});
