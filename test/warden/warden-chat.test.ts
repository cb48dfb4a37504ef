import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply } from "../support/model-server.js";
import { api, HOST_KEY, readSse, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

let h: WardenHarness;
let call: ReturnType<typeof api>;
let sessionId = "";

beforeAll(async () => {
  h = await startWardenHarness();
  call = api(h.url, await h.addUser("alice"));
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe("a chat turn through the warden", () => {
  it("calls a tool and streams the answer from a cell without network; the model sees the host's key, the cell's environment does not", async () => {
    h.model.enqueue(
      reply.toolCalls([{ name: "bash", arguments: { command: "env; echo probe-ran" } }]),
      reply.text("All checked.", { chunks: 3 }),
    );
    const response = await call("POST", "/api/chat", { text: "check your environment", stream: true });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toContain("text/event-stream");
    const events = (await readSse(response)).map((e) => e.data as Record<string, unknown>);
    expect(events[0]).toMatchObject({ type: "session" });
    sessionId = String(events[0]?.sessionId);
    const tool = events.find((e) => e.type === "tool");
    expect(tool).toMatchObject({ tool: "bash", isError: false });
    // The probe ran (its marker and the cell's PATH are there), and the host's key is not in its environment.
    expect(String(tool?.content)).toContain("probe-ran");
    expect(String(tool?.content)).toContain("PATH=");
    expect(String(tool?.content)).not.toContain(HOST_KEY);
    expect(
      events
        .filter((e) => e.type === "delta")
        .map((e) => e.text)
        .join(""),
    ).toBe("All checked.");
    expect(events.at(-1)).toMatchObject({ type: "done", text: "All checked.", stopReason: "stop" });
    const chats = h.model.requests.filter((r) => r.path.endsWith("/chat/completions"));
    expect(chats.length).toBe(2);
    for (const r of chats) expect(r.headers.authorization).toBe(`Bearer ${HOST_KEY}`);
  }, 120_000);

  it("keeps the session: listed, shown as the user saw it, and given to the model on the next turn", async () => {
    h.model.enqueue(reply.text("Still here."));
    const response = await call("POST", `/api/sessions/${sessionId}/messages`, {
      text: "are you still there?",
    });
    expect(response.status).toBe(200);
    const answer = (await response.json()) as { data: Record<string, unknown> };
    expect(answer.data).toMatchObject({ session_id: sessionId, text: "Still here.", stop_reason: "stop" });
    const last = h.model.chatRequests().at(-1);
    const said = (last?.messages ?? []).map(
      (m) => `${m.role}:${typeof m.content === "string" ? m.content : ""}`,
    );
    expect(said).toContain("user:check your environment");
    expect(said).toContain("assistant:All checked.");
    expect(said.at(-1)).toBe("user:are you still there?");

    const list = (await (await call("GET", "/api/sessions")).json()) as {
      data: Array<Record<string, unknown>>;
    };
    expect(list.data[0]).toMatchObject({ id: sessionId, title: "check your environment", turns: 2 });
    const shown = (await (await call("GET", `/api/sessions/${sessionId}`)).json()) as {
      data: { entries: Array<{ role: string; content: string }> };
    };
    expect(shown.data.entries.map((e) => e.role)).toEqual(["user", "tool", "assistant", "user", "assistant"]);
    expect(shown.data.entries.at(-1)?.content).toBe("Still here.");
  }, 60_000);

  it("ends a turn whose model fails with what happened in words, not the provider's internals, and the cell keeps serving", async () => {
    h.model.enqueue(reply.status(500, "upstream exploded"), reply.text("Recovered."));
    const failed = (await (await call("POST", "/api/chat", { text: "fail please" })).json()) as {
      data: Record<string, unknown>;
    };
    expect(failed.data).toMatchObject({ stop_reason: "error", failure: "model_unavailable" });
    expect(String(failed.data.error)).toMatch(/^the model is unavailable right now/);
    expect(String(failed.data.error)).not.toMatch(/500|upstream exploded|127\.0\.0\.1/);
    const ok = (await (await call("POST", "/api/chat", { text: "again" })).json()) as {
      data: Record<string, unknown>;
    };
    expect(ok.data.text).toBe("Recovered.");
  }, 60_000);
});

describe("bad input gets a clear error and loses nothing", () => {
  it("refuses requests without a token or with a wrong one (401)", async () => {
    const none = await api(h.url, undefined)("GET", "/api/sessions");
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe("unauthorized");
    const wrong = await api(h.url, "ick_0123456789abcdef_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")(
      "GET",
      "/api/sessions",
    );
    expect(wrong.status).toBe(401);
    const garbage = await api(h.url, "not-a-token")("GET", "/api/sessions");
    expect(garbage.status).toBe(401);
  });

  it("answers malformed JSON with 400, a bad field with 400 naming it, an oversize body with 413", async () => {
    const malformed = await call("POST", "/api/chat", "{not json");
    expect(malformed.status).toBe(400);
    expect(((await malformed.json()) as { error: { message: string } }).error.message).toMatch(
      /not valid JSON/,
    );
    const empty = await call("POST", "/api/chat", { text: "" });
    expect(empty.status).toBe(400);
    expect(((await empty.json()) as { error: { message: string } }).error.message).toMatch(
      /body.*text.*must not be empty/,
    );
    const unknownKey = await call("POST", "/api/chat", { text: "hi", temperature: 3 });
    expect(unknownKey.status).toBe(400);
    expect(((await unknownKey.json()) as { error: { message: string } }).error.message).toMatch(
      /temperature/,
    );
    const big = await call("POST", "/api/chat", { text: "x".repeat(2 * 1024 * 1024) });
    expect(big.status).toBe(413);
    const missing = await call("GET", "/api/sessions/01ARZ3NDEKTSV4RRFFQ69G5FAV");
    expect(missing.status).toBe(404);
    // Nothing stored was harmed: the session is still whole.
    const shown = (await (await call("GET", `/api/sessions/${sessionId}`)).json()) as {
      data: { entries: unknown[] };
    };
    expect(shown.data.entries).toHaveLength(5);
  });

  it("refuses a guest that names a provider the host does not offer, audits it, and keeps serving", async () => {
    const profile = 'name = "assistant"\nprovider = "nope"\nmodel = "test-model"\n';
    const put = await call("PUT", "/api/brain/file", {
      path: "config/agents/assistant.toml",
      content: profile,
    });
    expect(put.status).toBe(200);
    const before = h.model.chatRequests().length;
    const answer = (await (await call("POST", "/api/chat", { text: "hello?" })).json()) as {
      data: Record<string, unknown>;
    };
    expect(answer.data.stop_reason).toBe("error");
    expect(String(answer.data.error)).toMatch(/provider nope is not offered by this host/);
    expect(h.model.chatRequests().length).toBe(before);
    const audit = (await (await call("GET", "/api/audit?action=model.refused")).json()) as {
      data: Array<{ detail: Record<string, unknown> }>;
    };
    expect(audit.data[0]?.detail).toMatchObject({ provider: "nope" });
    const health = await fetch(`${h.url}/health`);
    expect(health.status).toBe(200);
    await call("PUT", "/api/brain/file", {
      path: "config/agents/assistant.toml",
      content: profile.replace("nope", "local"),
    });
  }, 60_000);

  it("documents every route in /api/openapi.json", async () => {
    const doc = (await (await fetch(`${h.url}/api/openapi.json`)).json()) as {
      paths: Record<string, unknown>;
    };
    for (const path of [
      "/api/chat",
      "/api/sessions/{id}",
      "/api/brain/file",
      "/api/soul/pending",
      "/v1/chat/completions",
      "/api/ws",
      "/health",
    ])
      expect(Object.keys(doc.paths)).toContain(path);
  });
});
