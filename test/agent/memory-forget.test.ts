import { readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { type AgentRuntime, SessionStore } from "../../src/agent/index.js";
import { databaseBytes as fileBytes } from "../support/database-bytes.js";
import { type ModelServer, reply, startModelServer } from "../support/model-server.js";
import { createTestBrain, openTestRuntime, type TestBrain } from "../support/test-brain.js";

let server: ModelServer;
let brain: TestBrain;
let runtime: AgentRuntime;
let clock = new Date("2026-03-03T10:00:00Z");

const SECRET = "the boiler code is 4412";

beforeAll(async () => {
  server = await startModelServer();
});
afterAll(() => server.close());
beforeEach(async () => {
  server.reset();
  clock = new Date("2026-03-03T10:00:00Z");
  brain = await createTestBrain({ baseUrl: server.url });
  brain.write(
    "memory.md",
    `# Memory\n\n## Boiler\n\nRemember: ${SECRET}.\n\n## Tea\n\nGenmaicha is the favourite.\n`,
  );
  runtime = await openTestRuntime(brain, { now: () => clock });
});
afterEach(async () => {
  await runtime?.close();
  brain?.remove();
});

const read = (path: string) => readFileSync(join(brain.root, path), "utf8");

const databaseBytes = () => fileBytes(runtime.db.file);

function rows<T>(sql: string): T[] {
  const db = new Database(runtime.db.file, { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

describe("forgetting through the memory tool", () => {
  it("removes the fact from the markdown, the index, stored conversations, the audit and the database file", async () => {
    // An earlier session said it too, and its stored history holds it.
    server.enqueue(reply.text("Got it."));
    const earlier = await runtime.runTurn({ sessionId: "s-earlier", prompt: `Note that ${SECRET}.` });
    new SessionStore(runtime.db).save("s-earlier", "assistant", earlier.messages);
    const transcript = "sessions/2026-03-03/s-earlier.md";
    expect(read(transcript)).toContain(SECRET);
    // Positive control: before the forget the probe finds the words in the database file.
    expect(databaseBytes()).toContain(SECRET);

    clock = new Date("2026-03-03T11:00:00Z");
    server.enqueue(
      reply.toolCalls([{ name: "memory", arguments: { action: "forget", query: "boiler code 4412" } }]),
      reply.text("Done — I no longer know it."),
    );
    const turn = await runtime.runTurn({
      sessionId: "s-forget",
      prompt: "Forget my boiler code 4412, please.",
    });
    const tool = turn.newMessages.find((m) => m.role === "tool");
    expect(tool?.content).toMatch(/^forgot 2 passage\(s\)/);
    expect(tool?.content).not.toContain("4412");

    expect(read("memory.md")).toBe("# Memory\n\n## Tea\n\nGenmaicha is the favourite.\n");
    expect(read(transcript)).not.toContain("4412");
    expect(read(transcript)).toContain("## 10:00:00 — assistant\n\nGot it.");
    // The turn that asked is kept without the words it asked to forget, and so is what it returns to store.
    expect(read("sessions/2026-03-03/s-forget.md")).toContain("## 11:00:00 — user\n\n[forgotten]\n");
    expect(read("sessions/2026-03-03/s-forget.md")).not.toContain("4412");
    expect(JSON.stringify(turn.messages)).not.toContain("4412");
    expect(await runtime.memory.search("4412", { mode: "lexical" })).toEqual([]);
    expect(JSON.stringify(new SessionStore(runtime.db).load("s-earlier")?.messages)).not.toContain("4412");
    expect(JSON.stringify(rows("SELECT * FROM audit_tool_calls"))).not.toContain("4412");
    expect(read(`logs/2026-03-03.md`)).not.toContain("4412");
    expect(databaseBytes()).not.toContain("4412");

    // What was forgotten is on record by place and hash, never by its words.
    const changes = rows<Record<string, unknown>>("SELECT * FROM audit_memory_changes ORDER BY path");
    expect(changes.map((c) => [c.action, c.actor, c.session_id, c.path])).toEqual([
      ["forget", "agent", "s-forget", "memory.md"],
      ["forget", "agent", "s-forget", transcript],
    ]);
    expect(changes[0]?.headings).toBe(JSON.stringify(["Memory", "Boiler"]));
    expect(String(changes[0]?.hash)).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(read("logs/2026-03-03.md")).toMatch(
      /memory forget \(agent, session s-forget\): memory\.md › Memory › Boiler/,
    );
  });

  it("removes exactly one passage named by the chunk id a recall returned", async () => {
    const [hit] = await runtime.memory.search("genmaicha favourite", { topK: 1 });
    expect(hit?.headings).toEqual(["Memory", "Tea"]);
    server.enqueue(
      reply.toolCalls([{ name: "memory", arguments: { action: "forget", id: hit?.id } }]),
      reply.text("Forgotten."),
    );
    await runtime.runTurn({ sessionId: "s-id", prompt: "forget the tea thing" });
    expect(read("memory.md")).toBe(`# Memory\n\n## Boiler\n\nRemember: ${SECRET}.\n`);
  });

  it("leaves no trace of a CJK passage in the trigram and path indexes either, and tells who listens what to drop", async () => {
    const cjk = "金庫の暗証番号は七四一二です";
    brain.write("notes/金庫.md", `# 金庫\n\n${cjk}\n\n## Tea\n\nSencha too.\n`);
    await runtime.memory.index();
    // Positive control: the trigram index finds it, and the file's bytes hold its trigrams.
    expect((await runtime.memory.search("暗証番号", { mode: "lexical" })).map((h) => h.path)).toContain(
      "notes/金庫.md",
    );
    const trigrams = Array.from({ length: cjk.length - 2 }, (_, i) => cjk.slice(i, i + 3));
    const utf8 = (t: string) => Buffer.from(t, "utf8").toString("latin1");
    expect(trigrams.some((t) => databaseBytes().includes(utf8(t)))).toBe(true);

    const heard: unknown[] = [];
    runtime.conversations.onForgotten((f) => heard.push(f));
    const report = await runtime.conversations.forget({ target: cjk, apply: true, actor: "user" });
    expect(report.places.map((p) => p.path)).toEqual(["notes/金庫.md"]);
    expect(heard).toEqual([{ scope: { query: cjk }, places: 1 }]);
    expect(read("notes/金庫.md")).toBe("# 金庫\n\n## Tea\n\nSencha too.\n");
    expect(await runtime.memory.search("暗証番号", { mode: "lexical" })).toEqual([]);
    const bytes = databaseBytes();
    expect(trigrams.filter((t) => bytes.includes(utf8(t)))).toEqual([]);
  });

  it("changes nothing and says so when nothing matches, and refuses a call naming both a query and an id", async () => {
    server.enqueue(
      reply.toolCalls([{ name: "memory", arguments: { action: "forget", query: "zebra crossing" } }]),
      reply.toolCalls([
        { name: "memory", arguments: { action: "forget", query: "tea", id: "0".repeat(32) } },
      ]),
      reply.text("Nothing to forget."),
    );
    const turn = await runtime.runTurn({ sessionId: "s-none", prompt: "forget zebras" });
    const results = turn.newMessages.filter((m) => m.role === "tool").map((m) => m.content);
    expect(results[0]).toBe("nothing in the brain matched; nothing was removed");
    expect(results[1]).toMatch(/query: forget needs exactly one of query and id/);
    expect(read("memory.md")).toContain(SECRET);
    expect(rows("SELECT * FROM audit_memory_changes")).toEqual([]);
  });
});

describe("correcting a fact through the memory tool", () => {
  it("replaces the old fact where it stands instead of appending, and records where", async () => {
    brain.write(
      "memory.md",
      "# Memory\n\n## Boiler\n\nThe boiler is a Vaillant ecoTEC, serviced in May.\n\n## Tea\n\nGenmaicha.\n",
    );
    await runtime.memory.index();
    server.enqueue(
      reply.toolCalls([
        {
          name: "memory",
          arguments: { action: "correct", old: "a Vaillant ecoTEC", text: "a Viessmann Vitodens" },
        },
      ]),
      reply.text("Corrected."),
    );
    const turn = await runtime.runTurn({
      sessionId: "s-fix",
      prompt: "That's wrong, it's a Viessmann Vitodens.",
    });
    expect(turn.newMessages.find((m) => m.role === "tool")?.content).toBe(
      "corrected 1 place(s): memory.md (lines 5-5)",
    );
    expect(read("memory.md")).toBe(
      "# Memory\n\n## Boiler\n\nThe boiler is a Viessmann Vitodens, serviced in May.\n\n## Tea\n\nGenmaicha.\n",
    );
    const [hit] = await runtime.memory.search("which boiler brand", { topK: 1 });
    expect(hit?.text).toContain("Viessmann Vitodens");
    expect(
      rows<{ action: string; start_line: number }>("SELECT action, start_line FROM audit_memory_changes"),
    ).toEqual([{ action: "correct", start_line: 5 }]);
  });

  it("says what to do when the old text is nowhere, and changes nothing", async () => {
    server.enqueue(
      reply.toolCalls([
        { name: "memory", arguments: { action: "replace", old: "a Buderus", text: "a Bosch" } },
      ]),
      reply.text("I could not find it."),
    );
    const turn = await runtime.runTurn({ sessionId: "s-miss", prompt: "it's a Bosch, not a Buderus" });
    const result = turn.newMessages.find((m) => m.role === "tool");
    expect(result).toMatchObject({ isError: true });
    expect(result?.content).toMatch(
      /text to correct "a Buderus" \(recall it first to see the exact words\) not found/,
    );
    expect(read("memory.md")).toContain(SECRET);
  });
});
