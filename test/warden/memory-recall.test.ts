import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { databaseBytes } from "../support/database-bytes.js";
import { createFakeCellBackend } from "../support/fake-cell.js";
import { reply } from "../support/model-server.js";
import { api, readSse, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// Memory across conversations, end to end: the warden, alice's real cell, the scripted model. The agent's clock
// is the warden's stamp on each message, so faking the warden's Date moves the agent a day on.

let h: WardenHarness;
let call: ReturnType<typeof api>;
const FACT = "we decided the old boiler gets replaced by a Vaillant heat pump in April";

beforeAll(async () => {
  vi.useFakeTimers({ toFake: ["Date"] });
  vi.setSystemTime(new Date("2026-03-03T09:15:00Z"));
  h = await startWardenHarness({ backend: createFakeCellBackend() });
  call = api(h.url, await h.addUser("alice"));
}, 60_000);
afterAll(async () => {
  await h?.close();
  vi.useRealTimers();
});

async function chat(text: string, sessionId?: string) {
  const response = await call("POST", "/api/chat", {
    text,
    stream: true,
    ...(sessionId ? { session_id: sessionId } : {}),
  });
  expect(response.status).toBe(200);
  const events = (await readSse(response)).map((e) => e.data as Record<string, unknown>);
  return {
    sessionId: String(events[0]?.sessionId),
    tools: events.filter((e) => e.type === "tool"),
    done: events.at(-1) as Record<string, unknown>,
  };
}

async function brainFile(path: string): Promise<{ status: number; content: string }> {
  const response = await call("GET", `/api/brain/file?path=${encodeURIComponent(path)}`);
  const body = (await response.json()) as { data?: { content: string } };
  return { status: response.status, content: body.data?.content ?? "" };
}

async function search(q: string): Promise<Array<{ path: string; text: string; headings: string[] }>> {
  const response = await call("GET", `/api/memory/search?q=${encodeURIComponent(q)}&mode=lexical&limit=10`);
  expect(response.status).toBe(200);
  return (
    (await response.json()) as { data: { hits: Array<{ path: string; text: string; headings: string[] }> } }
  ).data.hits;
}

/** The user's conversations as the warden keeps them (titles and every entry), through the API. */
async function conversations(): Promise<string> {
  const list = (await (await call("GET", "/api/sessions")).json()) as { data: Array<{ id: string }> };
  const details = await Promise.all(
    list.data.map(async (s) => (await call("GET", `/api/sessions/${s.id}`)).json()),
  );
  return JSON.stringify([list, details]);
}

/** Every byte of host.db and its write-ahead log, to search for leftovers of a forgotten fact. */
const hostDbBytes = () => databaseBytes(join(h.home, "host.db"));

const systemPrompt = () => String(h.model.chatRequests().at(-1)?.messages[0]?.content ?? "");

describe("a fact said in one conversation, through the warden", () => {
  let first = "";

  it("is kept as the session's transcript in the brain, dated by its first turn", async () => {
    h.model.enqueue(reply.text("Noted, a heat pump in April."));
    first = (await chat(`Remember for later: ${FACT}.`)).sessionId;
    const transcript = await brainFile(`sessions/2026-03-03/${first}.md`);
    expect(transcript.status).toBe(200);
    expect(transcript.content).toContain(`## 09:15:00 — user\n\nRemember for later: ${FACT}.\n`);
    expect(transcript.content).toContain("— assistant\n\nNoted, a heat pump in April.\n");
  }, 60_000);

  it("is found by memory search in a new session a day later, and the answer cites the session and turn", async () => {
    // The cell stops overnight (idle); the next day's message starts it again.
    await h.warden.context.cells.stop("alice");
    vi.setSystemTime(new Date("2026-03-04T08:30:00Z"));
    const cite = `[sessions/2026-03-03/${first}.md#09:15:00 — user]`;
    h.model.enqueue(
      reply.toolCalls([
        { name: "memory", arguments: { action: "recall", query: "boiler decided heat pump" } },
      ]),
      reply.text(`Last Tuesday you decided on a Vaillant heat pump for the boiler, in April ${cite}.`),
    );
    const second = await chat("What did we decide last Tuesday about the boiler?");
    expect(second.sessionId).not.toBe(first);
    const found = String(second.tools[0]?.content);
    expect(found).toContain(cite);
    expect(found).toContain(FACT);
    expect(systemPrompt()).toContain("cite it as [path#heading]");
    expect(second.done).toMatchObject({ type: "done", stopReason: "stop" });
    expect(String(second.done.text)).toContain(cite);
    expect((await brainFile(`sessions/2026-03-04/${second.sessionId}.md`)).status).toBe(200);
  }, 60_000);

  it("is gone from the markdown, the index and the next answer's context once the user asks to forget it", async () => {
    // Positive control: right now search finds it, in both days' transcripts.
    const before = (await search("Vaillant heat pump")).filter((hit) => hit.text.includes("Vaillant"));
    expect(new Set(before.map((hit) => hit.path.slice(0, 20)))).toEqual(
      new Set(["sessions/2026-03-03/", "sessions/2026-03-04/"]),
    );
    // Positive control: the warden's own record of the conversations holds it, in the API and in the file.
    expect(await conversations()).toContain("Vaillant");
    expect(hostDbBytes()).toContain("Vaillant");
    h.model.enqueue(
      reply.toolCalls([{ name: "memory", arguments: { action: "forget", query: "Vaillant heat pump" } }]),
      reply.text("Done, I have forgotten it."),
    );
    const forget = await chat("Please forget the Vaillant heat pump decision.");
    expect(String(forget.tools[0]?.content)).toMatch(/^forgot \d+ passage\(s\)/);
    expect(forget.tools[0]?.args).not.toContain("Vaillant");

    expect((await brainFile(`sessions/2026-03-03/${first}.md`)).content).not.toContain("Vaillant");
    expect((await brainFile(`sessions/2026-03-04/${forget.sessionId}.md`)).content).not.toContain("Vaillant");
    expect((await search("Vaillant heat pump")).filter((hit) => hit.text.includes("Vaillant"))).toEqual([]);
    // What the warden kept of the conversations (titles, questions, answers, tool calls) lost it too, and so
    // did host.db's bytes; the rest of those conversations is still there.
    const kept = await conversations();
    expect(kept).not.toContain("Vaillant");
    expect(kept).toContain("[forgotten]");
    expect(kept).toContain("Noted, a heat pump in April.");
    expect(hostDbBytes()).not.toContain("Vaillant");
    const audit = (await (await call("GET", "/api/audit?action=memory.forgotten")).json()) as {
      data: Array<{ detail: Record<string, unknown> }>;
    };
    expect(audit.data[0]?.detail).toMatchObject({ places: 2 });
    expect(JSON.stringify(audit.data)).not.toContain("Vaillant");

    h.model.enqueue(reply.text("I don't know which heat pump."));
    await chat("Which heat pump brand did we pick for the boiler?");
    // The new session's whole request — system prompt with recalled memory, and the conversation — lacks it.
    const request = h.model.chatRequests().at(-1);
    expect(systemPrompt()).toContain("# Memory");
    expect(JSON.stringify(request?.messages)).not.toContain("Vaillant");
  }, 60_000);
});

describe("forgetting through the API, as the memory inspector does", () => {
  const NOTE = "logs/2026-03-02.md";
  const PIN = "the garage door pin is 7781";
  // The pin's digits as written, not the same four digits inside an id or a hash (a chunk id once held "7781").
  const DIGITS = /(?<![0-9A-Za-z])7781(?![0-9A-Za-z])/;

  it("previews with the text and changes nothing; applied, removes it from the brain and the conversations", async () => {
    const put = await call("PUT", "/api/brain/file", {
      path: NOTE,
      content: `# 2026-03-02\n\n## Garage\n\nNote: ${PIN}.\n\n## Garden\n\nThe roses need pruning.\n`,
    });
    expect(put.status).toBe(200);
    h.model.enqueue(reply.text(`Got it: ${PIN}.`));
    await chat(`Also, ${PIN}.`);
    expect(await conversations()).toMatch(DIGITS);

    const preview = await call("POST", "/api/memory/forget", { target: "garage door pin 7781" });
    expect(preview.status).toBe(200);
    const shown = ((await preview.json()) as { data: Record<string, unknown> }).data;
    expect(shown).toMatchObject({ applied: false });
    expect(JSON.stringify(shown.previews)).toContain(PIN);
    expect((shown.places as Array<{ path: string }>).map((p) => p.path)).toContain(NOTE);
    expect((await brainFile(NOTE)).content).toContain(PIN);
    expect(await conversations()).toMatch(DIGITS);

    const applied = await call("POST", "/api/memory/forget", { target: "garage door pin 7781", apply: true });
    expect(applied.status).toBe(200);
    const done = ((await applied.json()) as { data: Record<string, unknown> }).data;
    expect(done).toMatchObject({ applied: true });
    expect(done.previews).toBeUndefined();
    expect(JSON.stringify(done)).not.toMatch(DIGITS);
    expect((done.places as Array<{ hash: string }>)[0]?.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect((await brainFile(NOTE)).content).toBe("# 2026-03-02\n\n## Garden\n\nThe roses need pruning.\n");
    expect(await search("garage door pin")).not.toContainEqual(expect.objectContaining({ path: NOTE }));
    expect(await conversations()).not.toMatch(DIGITS);
    expect(hostDbBytes()).not.toMatch(DIGITS);
  }, 60_000);

  it("refuses a target with no word, an empty one or unknown keys naming the field, and an unknown chunk with 404", async () => {
    for (const [body, rule] of [
      [{ target: "!!!" }, /body\.target: must contain a word/],
      [{ target: "" }, /body\.target: must not be empty/],
      [{ target: "roses", apply: "yes" }, /body\.apply/],
      [{ target: "roses", everything: true }, /everything/],
    ] as const) {
      const response = await call("POST", "/api/memory/forget", body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(((await response.json()) as { error: { message: string } }).error.message).toMatch(rule);
    }
    const unknown = await call("POST", "/api/memory/forget", {
      target: "0123456789abcdef0123456789abcdef",
      apply: true,
    });
    expect(unknown.status).toBe(404);
    expect((await brainFile("logs/2026-03-02.md")).content).toContain("The roses need pruning.");
  }, 60_000);

  it("explains each search hit: both legs' ranks, recency and the floor, in one line too", async () => {
    const [hit] = await search("roses pruning");
    expect(hit?.path).toBe("logs/2026-03-02.md");
    const explanation = (hit as unknown as { explanation: Record<string, unknown> }).explanation;
    expect(explanation).toMatchObject({
      lexical_rank: 1,
      recency: { source: "dated", date: "2026-03-02" },
      floor: { passed: expect.any(String) },
    });
    expect(String(explanation.summary)).toMatch(/lexical #1/);
  }, 60_000);
});

describe("promotion proposals through the warden", () => {
  const LOG = "logs/2026-03-01.md";
  const CITE = `[${LOG}#Water pressure]`;

  it("lists a passage cited in three sessions on two days, writes it to memory.md only when approved", async () => {
    const put = await call("PUT", "/api/brain/file", {
      path: LOG,
      content: "# 2026-03-01\n\n## Water pressure\n\nThe heating water pressure should sit at 1.5 bar.\n",
    });
    expect(put.status).toBe(200);
    // A search right after an edit through the API indexes it first.
    expect((await search("heating water pressure")).map((hit) => hit.path)).toContain(LOG);
    for (const at of ["2026-03-04T09:00:00Z", "2026-03-04T12:00:00Z", "2026-03-05T09:00:00Z"]) {
      vi.setSystemTime(new Date(at));
      h.model.enqueue(
        reply.toolCalls([
          { name: "memory", arguments: { action: "recall", query: "heating water pressure" } },
        ]),
        reply.text(`Keep it at 1.5 bar ${CITE}.`),
      );
      await chat("What should the heating water pressure be?");
    }
    const listed = await call("GET", "/api/memory/promotions?status=pending");
    expect(listed.status).toBe(200);
    const { proposals } = ((await listed.json()) as { data: { proposals: Array<Record<string, unknown>> } })
      .data;
    expect(proposals).toHaveLength(1);
    expect(proposals[0]).toMatchObject({
      path: LOG,
      headings: ["2026-03-01", "Water pressure"],
      sessions: 3,
      days: 2,
    });
    expect((await brainFile("memory.md")).content).not.toContain("1.5 bar");

    const id = String(proposals[0]?.id);
    const approved = await call("POST", `/api/memory/promotions/${id}/approve`);
    expect(approved.status).toBe(200);
    expect(((await approved.json()) as { data: Record<string, unknown> }).data).toMatchObject({
      status: "approved",
    });
    const memory = (await brainFile("memory.md")).content;
    expect(memory).toContain(
      "The heating water pressure should sit at 1.5 bar.\n\n_Source: [logs/2026-03-01.md#Water pressure]",
    );

    const again = await call("POST", `/api/memory/promotions/${id}/reject`);
    expect(again.status).toBe(409);
    const unknown = await call("POST", "/api/memory/promotions/01ARZ3NDEKTSV4RRFFQ69G5FAV/approve");
    expect(unknown.status).toBe(404);
    const bad = await call("GET", "/api/memory/promotions?status=maybe");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(
      /status.*must be one of/,
    );
  }, 60_000);
});
