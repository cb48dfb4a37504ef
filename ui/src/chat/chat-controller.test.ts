import { describe, expect, it } from "vitest";
import type { Session, SessionEntry, WsClientMessage } from "../api/endpoints.js";
import type { LiveSocketOptions } from "../api/live-socket.js";
import { deferred, fakeApi, ok } from "../testing/fake-api.js";
import { createChatController } from "./chat-controller.js";

type Handlers = Omit<LiveSocketOptions, "url" | "WebSocketImpl">;

function memoryStorage(initial: Record<string, string> = {}) {
  const map = new Map(Object.entries(initial));
  return {
    getItem: (k: string) => map.get(k) ?? null,
    setItem: (k: string, v: string) => void map.set(k, v),
    removeItem: (k: string) => void map.delete(k),
    map,
  };
}

const session = (id: string, title: string): Session => ({
  id,
  title,
  agent: null,
  channel: "ws",
  createdAt: "2026-01-01T00:00:00Z",
  updatedAt: "2026-01-01T00:00:00Z",
  turns: 1,
});
const entry = (seq: number, role: SessionEntry["role"], content: string, meta = {}): SessionEntry => ({
  seq,
  role,
  content,
  meta,
  at: "2026-01-01T00:00:00Z",
});

function setup(api: ReturnType<typeof fakeApi>, storage = memoryStorage(), open = true) {
  const sent: WsClientMessage[] = [];
  let handlers!: Handlers;
  const chat = createChatController({
    api: api.client,
    storage,
    pollMs: 1,
    openSocket(h) {
      handlers = h;
      return {
        open: () => h.onStatus("online", "Connected"),
        close() {},
        send(m) {
          if (open) sent.push(m);
          return open;
        },
      };
    },
  });
  return { chat, sent, server: (m: Parameters<Handlers["onMessage"]>[0]) => handlers.onMessage(m), storage };
}

const base = {
  "GET /api/sessions": () => ok([session("s1", "Garden")]),
  "GET /api/agents": () =>
    ok({ agents: [{ name: "assistant", provider: "local", model: "m" }], default_agent: "assistant" }),
  "GET /api/me": () => ok({ user: "alice", admin: false, via: "cookie" as const }),
};

describe("the chat controller", () => {
  it("shows a streamed turn as the user's message, an answer growing delta by delta and a tool row, and remembers the session", async () => {
    const { chat, sent, server, storage } = setup(fakeApi(base));
    await chat.dispatch({ type: "start" });
    await expect.poll(() => chat.state.agent).toBe("assistant");
    expect(await chat.dispatch({ type: "send", text: "water the quince" })).toBe(true);
    const id = (sent[0] as { id: string }).id;
    expect(sent[0]).toMatchObject({ type: "chat", text: "water the quince", agent: "assistant" });
    server({ type: "session", sessionId: "s9", id });
    server({ type: "delta", text: "Water", id });
    expect(chat.state.items.at(-1)).toMatchObject({ kind: "assistant", text: "Water", streaming: true });
    server({ type: "delta", text: "ing…", id });
    server({
      type: "tool",
      callId: "c1",
      tool: "bash",
      isError: false,
      outcome: "ok",
      content: "done",
      args: '{"command":"water"}',
      durationMs: 12,
      id,
    });
    server({ type: "delta", text: "Done.", id });
    server({
      type: "done",
      text: "Watering…Done.",
      usage: { input_tokens: 1, output_tokens: 2 },
      stopReason: "stop",
      id,
    });
    expect(chat.state.items.map((i) => i.kind)).toEqual(["user", "assistant", "tool", "assistant"]);
    expect(chat.state.items[1]).toMatchObject({ text: "Watering…", streaming: false });
    expect(chat.state.items[2]).toMatchObject({
      tool: "bash",
      args: '{"command":"water"}',
      durationMs: 12,
      outcome: "ok",
    });
    expect(chat.state.turn).toBeNull();
    expect(chat.state.sessionId).toBe("s9");
    expect(storage.map.get("ironclaw.session")).toBe("s9");
  });

  it("stops a running turn by cancelling its chat id, and says it stopped", async () => {
    const { chat, sent, server } = setup(fakeApi(base));
    await chat.dispatch({ type: "start" });
    await chat.dispatch({ type: "send", text: "talk at length" });
    const id = (sent[0] as { id: string }).id;
    await chat.dispatch({ type: "stop" });
    expect(sent[1]).toEqual({ type: "cancel", id });
    expect(chat.state.turn).toMatchObject({ stopping: true });
    server({
      type: "done",
      text: "",
      usage: { input_tokens: 0, output_tokens: 0 },
      stopReason: "aborted",
      error: "the turn was stopped",
      id,
    });
    expect(chat.state.items.at(-1)).toMatchObject({
      kind: "notice",
      level: "info",
      text: expect.stringMatching(/^Stopped/),
    });
  });

  it("keeps the message and says why when the socket is not connected", async () => {
    const api = fakeApi(base);
    const sentWhileClosed = setup(api, memoryStorage(), false);
    await sentWhileClosed.chat.dispatch({ type: "start" });
    expect(await sentWhileClosed.chat.dispatch({ type: "send", text: "hello" })).toBe(false);
    expect(sentWhileClosed.chat.state.items).toEqual([
      expect.objectContaining({
        kind: "notice",
        level: "error",
        text: expect.stringMatching(/Not connected.*still in the box/),
      }),
    ]);
  });

  it("drops a slow answer for a conversation the user already left", async () => {
    const slow = deferred<ReturnType<typeof ok>>();
    const api = fakeApi({
      ...base,
      "GET /api/sessions/:id": (args) =>
        (args.params as { id: string }).id === "slow"
          ? (slow.promise as never)
          : ok({
              session: session("fast", "Fast"),
              entries: [entry(1, "user", "fast question"), entry(2, "assistant", "fast answer")],
            }),
    });
    const { chat } = setup(api);
    const first = chat.dispatch({ type: "open", sessionId: "slow" });
    await chat.dispatch({ type: "open", sessionId: "fast" });
    slow.resolve(
      ok({ session: session("slow", "Slow"), entries: [entry(1, "user", "slow question")] }) as never,
    );
    await first;
    expect(chat.state.sessionId).toBe("fast");
    expect(chat.state.items.map((i) => ("text" in i ? i.text : ""))).toEqual([
      "fast question",
      "fast answer",
    ]);
  });

  it("after a reload mid-answer, looks again until the answer is stored", async () => {
    let looks = 0;
    const api = fakeApi({
      ...base,
      "GET /api/sessions/:id": () => {
        looks += 1;
        const entries = [entry(1, "user", "still there?")];
        if (looks >= 3) entries.push(entry(2, "assistant", "Yes."));
        return ok({ session: session("s1", "Garden"), entries });
      },
    });
    const { chat } = setup(api, memoryStorage({ "ironclaw.session": "s1" }));
    await chat.dispatch({ type: "start" });
    await expect.poll(() => chat.state.items.map((i) => i.kind)).toEqual(["user", "assistant"]);
    expect(looks).toBe(3);
  });

  it("offers Retry on a failed turn, which sends the same message again in the same conversation", async () => {
    const { chat, sent, server } = setup(fakeApi(base));
    await chat.dispatch({ type: "start" });
    await chat.dispatch({ type: "send", text: "plan the week" });
    const id = (sent[0] as { id: string }).id;
    server({ type: "session", sessionId: "s7", id });
    server({ type: "delta", text: "Mon", id });
    server({
      type: "done",
      text: "Mon",
      usage: { input_tokens: 0, output_tokens: 0 },
      stopReason: "error",
      error: "the model stopped answering mid-reply. Try again in a moment.",
      failure: "model_interrupted",
      id,
    });
    const failed = chat.state.items.at(-1);
    expect(failed).toMatchObject({
      kind: "notice",
      level: "error",
      text: "the model stopped answering mid-reply. Try again in a moment.",
      retry: "plan the week",
    });
    expect(await chat.dispatch({ type: "retry", key: failed?.key ?? "" })).toBe(true);
    expect(sent[1]).toMatchObject({ type: "chat", text: "plan the week", session_id: "s7" });
    expect((sent[1] as { id: string }).id).not.toBe(id);
    expect(chat.state.turn).not.toBeNull();
    // The old failure no longer offers a retry; the message shows again as sent.
    expect(chat.state.items.find((i) => i.key === failed?.key)).not.toHaveProperty("retry");
    expect(chat.state.items.at(-1)).toMatchObject({ kind: "user", text: "plan the week" });
    // A second Retry of the same failure, or one while a turn runs, sends nothing.
    expect(await chat.dispatch({ type: "retry", key: failed?.key ?? "" })).toBe(false);
    expect(sent).toHaveLength(2);
  });

  it("offers no Retry where sending again cannot help (a refusal) and none on a stopped turn", async () => {
    const { chat, sent, server } = setup(fakeApi(base));
    await chat.dispatch({ type: "start" });
    await chat.dispatch({ type: "send", text: "spend more" });
    server({
      type: "done",
      text: "",
      usage: { input_tokens: 0, output_tokens: 0 },
      stopReason: "error",
      error: "the spend cap is reached for today",
      failure: "refused",
      id: (sent[0] as { id: string }).id,
    });
    expect(chat.state.items.at(-1)).toMatchObject({ kind: "notice", level: "error" });
    expect(chat.state.items.at(-1)).not.toHaveProperty("retry");
    await chat.dispatch({ type: "send", text: "talk" });
    server({
      type: "done",
      text: "",
      usage: { input_tokens: 0, output_tokens: 0 },
      stopReason: "aborted",
      id: (sent[1] as { id: string }).id,
    });
    expect(chat.state.items.at(-1)).not.toHaveProperty("retry");
  });

  it("offers Retry on a failed turn of a stored conversation, with the message that failed", async () => {
    const api = fakeApi({
      ...base,
      "GET /api/sessions/:id": () =>
        ok({
          session: session("s1", "Garden"),
          entries: [
            entry(1, "user", "first"),
            entry(2, "assistant", "Fine."),
            entry(3, "user", "second"),
            entry(4, "error", "the model is unavailable right now. Try again in a moment.", {
              stop_reason: "error",
              failure: "model_unavailable",
            }),
          ],
        }),
    });
    const { chat, sent } = setup(api, memoryStorage({ "ironclaw.session": "s1" }));
    await chat.dispatch({ type: "start" });
    await expect.poll(() => chat.state.items.length).toBe(4);
    const failed = chat.state.items.at(-1);
    expect(failed).toMatchObject({ kind: "notice", retry: "second" });
    expect(await chat.dispatch({ type: "retry", key: failed?.key ?? "" })).toBe(true);
    expect(sent[0]).toMatchObject({ type: "chat", text: "second", session_id: "s1" });
  });
});
