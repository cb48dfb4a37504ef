import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { AgentDatabase, BrainAuditLog, DayLog, JobStore, SessionStore } from "../../src/agent/index.js";
import { IndexStore } from "../../src/memory/index.js";
import type { ChatMessage } from "../../src/providers/index.js";

let dir: string;
let file: string;
const opened: Array<{ close(): void }> = [];
function openAgentDb(): AgentDatabase {
  const db = AgentDatabase.open(file);
  opened.push(db);
  return db;
}
/** Writes through a connection of its own, as an older build or a hand edit would. */
function writeRaw(sql: string, ...params: unknown[]): void {
  const raw = new Database(file);
  try {
    raw.prepare(sql).run(...params);
  } finally {
    raw.close();
  }
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "ironclaw-agent-db-"));
  file = join(dir, "db", "ironclaw.db");
});
afterEach(() => {
  for (const db of opened.splice(0)) db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the runtime's tables in the brain database", () => {
  const conversation: ChatMessage[] = [
    { role: "user", content: "Read my notes." },
    { role: "assistant", content: "", toolCalls: [{ id: "c1", name: "file", arguments: '{"path":"a.md"}' }] },
    { role: "tool", toolCallId: "c1", name: "file", content: "# A", isError: false },
    { role: "assistant", content: "Done.", toolCalls: [] },
  ];

  it("keeps a session across connections, counting its turns", () => {
    const sessions = new SessionStore(openAgentDb());
    sessions.save("s1", "assistant", conversation.slice(0, 1));
    sessions.save("s1", "assistant", conversation);
    expect(new SessionStore(openAgentDb()).load("s1")).toMatchObject({
      agent: "assistant",
      messages: conversation,
      turns: 2,
    });
    expect(new SessionStore(openAgentDb()).load("unknown")).toBeUndefined();
  });

  it("refuses a stored conversation that is not the message contract, naming the session and the place", () => {
    openAgentDb();
    writeRaw(
      "INSERT INTO agent_sessions (session_id, agent, messages, turns, updated_at) VALUES (?, ?, ?, 1, ?)",
      "s2",
      "assistant",
      JSON.stringify([
        { role: "user", content: "hi" },
        { role: "robot", content: "beep" },
      ]),
      "2026-01-01T00:00:00Z",
    );
    expect(() => new SessionStore(openAgentDb()).load("s2")).toThrow(
      /agent_sessions\.messages of session s2 at 1/,
    );
  });

  it("reads the audit trail back as it was recorded", async () => {
    const audit = new BrainAuditLog(openAgentDb(), new DayLog(dir));
    const at = new Date("2026-03-01T10:00:00Z");
    const entry = {
      at,
      sessionId: "s1",
      agent: "assistant",
      tool: "file",
      callId: "c1",
      args: '{"path":"a.md"}',
      outcome: "ok" as const,
      isError: false,
      durationMs: 3,
      summary: "# A",
    };
    await audit.record(entry);
    await audit.record({ ...entry, sessionId: "s2", outcome: "refused", isError: true });
    expect(audit.entries("s1")).toEqual([entry]);
    expect(audit.entries().map((e) => e.outcome)).toEqual(["ok", "refused"]);
  });

  it("reports a job row whose status is no job state instead of passing it on", () => {
    openAgentDb();
    writeRaw(
      "INSERT INTO agent_cron_jobs (job_id, schedule, timezone, agent, enabled, status, updated_at) " +
        "VALUES ('j1', '0 9 * * *', 'UTC', NULL, 1, 'exploded', '2026-01-01T00:00:00Z')",
    );
    expect(() => new JobStore(openAgentDb()).get("j1")).toThrow(/agent_cron_jobs\.status "exploded"/);
  });

  it("shares the file with memory's index, each on its own connection and tables", () => {
    const index = IndexStore.open(file);
    opened.push(index);
    const sessions = new SessionStore(openAgentDb());
    index.setMeta("probe", "index");
    sessions.save("s1", "assistant", conversation);
    expect(index.meta("probe")).toBe("index");
    expect(index.chunkCount()).toBe(0);
    expect(sessions.load("s1")?.messages).toEqual(conversation);
  });
});
