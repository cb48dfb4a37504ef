import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { reply } from "../support/model-server.js";
import { startTelegramServer, type TelegramServer, telegramIntegration } from "../support/telegram-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// No message and no brain file may kill an agent: every front door refuses a message over [limits]
// max_message_bytes (default 256 KiB) with an error naming the field and the limit, passes one just under it to
// the cell, which answers; a brain holding files of 100 kB, 1 MB and 10 MB starts and answers, and reports
// what it could not index. One real warden, real bwrap cells, the scripted model.

const LIMIT = 256 * 1024;
const SECRET = "poison-pill-secret";
let h: WardenHarness;
let bot: TelegramServer;
let token = "";
let call: ReturnType<typeof api>;
let updateId = 5000;

/** A paste as users make them: numbered lines of short sentences, no headings, `bytes` long. */
function paste(bytes: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const line = `line ${i}: the build failed at step ${i % 17} because the cache was cold. Retrying it`;
    lines.push(line);
    size += line.length + 1;
  }
  return lines.join("\n").slice(0, bytes);
}

const MiB = 1024 * 1024;
const sizes = { near: LIMIT - 2048, over: LIMIT + 4096, oneMb: MiB, tenMb: 10 * MiB };

beforeAll(async () => {
  bot = await startTelegramServer();
  h = await startWardenHarness({
    configure: (config) => ({
      ...config,
      integrations: telegramIntegration(bot, SECRET),
    }),
  });
  token = await h.addUser("alice");
  call = api(h.url, token);
}, 120_000);
afterAll(async () => {
  await h?.close();
  await bot?.close();
});

async function errorOf(response: Response): Promise<string> {
  return ((await response.json()) as { error: { message: string } }).error.message;
}

const MESSAGE_RULE =
  /a message may be at most 256 KiB \(262144 bytes\) \(\[limits\] max_message_bytes in ironclawd\.toml\)/;
const BODY_RULE =
  /request body: at most 1 MiB \(1048576 bytes\) is accepted \(\[server\] body_limit in ironclawd\.toml\), and a chat message at most 256 KiB/;

describe("a message larger than the limit, at every door", () => {
  it("/api/chat answers a message just under the limit from the cell, and refuses larger ones with 413 naming the field and limit", async () => {
    h.model.enqueue(reply.text("Read all of it."));
    const near = paste(sizes.near);
    const answered = await call("POST", "/api/chat", { text: near });
    expect(answered.status).toBe(200);
    const data = ((await answered.json()) as { data: { text: string; error?: string } }).data;
    expect(data).toMatchObject({ text: "Read all of it." });
    expect(data.error).toBeUndefined();
    // The model was given the whole message.
    const sent = h.model.chatRequests().at(-1)?.messages.at(-1);
    expect(sent?.content).toBe(near);

    const over = await call("POST", "/api/chat", { text: paste(sizes.over) });
    expect(over.status).toBe(413);
    const message = await errorOf(over);
    expect(message).toMatch(/^text: /);
    expect(message).toMatch(MESSAGE_RULE);
    for (const bytes of [sizes.oneMb, sizes.tenMb]) {
      const huge = await call("POST", "/api/chat", { text: paste(bytes) });
      expect(huge.status).toBe(413);
      expect(await errorOf(huge)).toMatch(BODY_RULE);
    }
    // The cell that read the near-limit message (and indexed its transcript) still answers.
    h.model.enqueue(reply.text("Still here."));
    const after = await call("POST", "/api/chat", { text: "still there?" });
    expect(((await after.json()) as { data: { text: string } }).data.text).toBe("Still here.");
  }, 120_000);

  it("/api/sessions/:id/messages answers 100 kB and refuses more than the limit with 413", async () => {
    const session = (await (await call("POST", "/api/sessions", {})).json()) as { data: { id: string } };
    const path = `/api/sessions/${session.data.id}/messages`;
    h.model.enqueue(reply.text("A hundred kilobytes, read."));
    const ok = await call("POST", path, { text: paste(100 * 1024) });
    expect(ok.status).toBe(200);
    expect(((await ok.json()) as { data: { text: string } }).data.text).toBe("A hundred kilobytes, read.");
    const over = await call("POST", path, { text: paste(sizes.over) });
    expect(over.status).toBe(413);
    expect(await errorOf(over)).toMatch(MESSAGE_RULE);
    for (const bytes of [sizes.oneMb, sizes.tenMb]) {
      const huge = await call("POST", path, { text: paste(bytes) });
      expect(huge.status).toBe(413);
      expect(await errorOf(huge)).toMatch(BODY_RULE);
    }
  }, 120_000);

  it("/v1/chat/completions answers 100 kB and refuses larger messages in OpenAI's error shape", async () => {
    const completion = (content: string) =>
      call("POST", "/v1/chat/completions", { model: "assistant", messages: [{ role: "user", content }] });
    h.model.enqueue(reply.text("OpenAI door, read."));
    const ok = await completion(paste(100 * 1024));
    expect(ok.status).toBe(200);
    const body = (await ok.json()) as { choices: Array<{ message: { content: string } }> };
    expect(body.choices[0]?.message.content).toBe("OpenAI door, read.");

    const over = await completion(paste(sizes.over));
    expect(over.status).toBe(413);
    const error = ((await over.json()) as { error: Record<string, unknown> }).error;
    expect(error).toMatchObject({ type: "invalid_request_error", code: "payload_too_large" });
    expect(error.param).toBe("messages.0.content");
    expect(String(error.message)).toMatch(MESSAGE_RULE);
    for (const bytes of [sizes.oneMb, sizes.tenMb]) {
      const huge = await completion(paste(bytes));
      expect(huge.status).toBe(413);
      const e = ((await huge.json()) as { error: Record<string, unknown> }).error;
      expect(e).toMatchObject({ type: "invalid_request_error", code: "payload_too_large" });
      expect(String(e.message)).toMatch(BODY_RULE);
    }
  }, 120_000);

  it("/api/ws answers an oversize message with an error event and keeps the socket for the next chat", async () => {
    const socket = await new Promise<WebSocket>((resolve, reject) => {
      const s = new WebSocket(`${h.url.replace("http", "ws")}/api/ws`, {
        headers: { authorization: `Bearer ${token}` },
      });
      s.once("open", () => resolve(s));
      s.once("error", reject);
    });
    const events: Array<Record<string, unknown>> = [];
    const waiters: Array<() => void> = [];
    socket.on("message", (data) => {
      events.push(JSON.parse(String(data)) as Record<string, unknown>);
      for (const wake of waiters.splice(0)) wake();
    });
    const next = async (match: (e: Record<string, unknown>) => boolean) => {
      for (;;) {
        const found = events.find(match);
        if (found) return found;
        await new Promise<void>((resolve) => waiters.push(resolve));
      }
    };
    for (const [id, bytes] of [
      ["over", sizes.over],
      ["one-mb", sizes.oneMb],
      ["ten-mb", sizes.tenMb],
    ] as const) {
      socket.send(JSON.stringify({ type: "chat", id, text: paste(bytes) }));
      const refused = await next((e) => e.id === id);
      expect(refused).toMatchObject({ type: "error", id, code: "payload_too_large" });
      expect(String(refused.message)).toMatch(/^text: /);
      expect(String(refused.message)).toMatch(MESSAGE_RULE);
    }
    expect(socket.readyState).toBe(WebSocket.OPEN);
    h.model.enqueue(reply.text("Socket door, read."));
    socket.send(JSON.stringify({ type: "chat", id: "ok", text: paste(100 * 1024) }));
    const done = await next((e) => e.id === "ok" && e.type === "done");
    expect(done).toMatchObject({ text: "Socket door, read." });
    socket.close();
  }, 120_000);

  it("Telegram replies to the sender with the limit and passes nothing to the agent", async () => {
    const update = (text: string) => ({
      update_id: updateId++,
      message: {
        message_id: updateId,
        date: 1,
        text,
        chat: { id: 4242, type: "private" },
        from: { id: 4242, is_bot: false, first_name: "Alice" },
      },
    });
    const webhook = (body: unknown) =>
      fetch(`${h.url}/channels/telegram/family`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
        body: JSON.stringify(body),
      });
    const pairing = (await (await call("POST", "/api/channels/pairing-code")).json()) as {
      data: { code: string };
    };
    expect((await webhook(update(`/pair ${pairing.data.code}`))).status).toBe(200);
    await bot.waitForMessages(1, 30_000);
    const before = h.model.chatRequests().length;
    expect((await webhook(update(paste(sizes.over)))).status).toBe(200);
    await bot.waitForMessages(2, 30_000);
    const answer = String(bot.sentMessages()[1]?.text);
    expect(answer).toMatch(/^This message was not sent to your agent: message: /);
    expect(answer).toMatch(MESSAGE_RULE);
    expect(h.model.chatRequests().length).toBe(before);
  }, 120_000);
});

describe("a brain holding huge files", () => {
  it("starts and answers with 100 kB, 1 MB and 10 MB files in it, and reports the file it did not index", async () => {
    // The agent writes them (a user's paste, a runaway log): memory.md, a day's log, a note without headings.
    const line = "I keep every build log here so that I can find what failed last week. ";
    const command = [
      `yes "${line}" | head -c ${100 * 1024} > /mnt/brain/memory.md`,
      "mkdir -p /mnt/brain/logs /mnt/brain/notes",
      `yes "${line}" | head -c ${MiB} > /mnt/brain/logs/2026-01-01.md`,
      `yes "${line}" | head -c ${10 * MiB} > /mnt/brain/notes/huge.md`,
      "wc -c /mnt/brain/memory.md /mnt/brain/logs/2026-01-01.md /mnt/brain/notes/huge.md",
    ].join(" && ");
    h.model.enqueue(reply.toolCalls([{ name: "bash", arguments: { command } }]), reply.text("Written."));
    const wrote = (await (await call("POST", "/api/chat", { text: "keep these logs" })).json()) as {
      data: { text: string; tools: Array<{ content: string; isError: boolean }> };
    };
    expect(wrote.data.tools[0]?.isError).toBe(false);
    expect(wrote.data.tools[0]?.content).toContain(String(10 * MiB));

    // The next start reads the brain as it is now: its index pass meets all three.
    await h.warden.context.cells.stop("alice");
    h.model.enqueue(reply.text("Started fine."));
    const started = (await (await call("POST", "/api/chat", { text: "are you up?" })).json()) as {
      data: { text: string; error?: string };
    };
    expect(started.data).toMatchObject({ text: "Started fine." });
    expect(started.data.error).toBeUndefined();

    const status = (await (await call("GET", "/api/memory/status")).json()) as {
      data: { skipped?: Array<{ path: string; reason: string }> };
    };
    expect(status.data.skipped).toContainEqual({
      path: "notes/huge.md",
      reason: "is larger than 4194304 bytes",
    });
    expect(status.data.skipped?.map((s) => s.path)).not.toContain("logs/2026-01-01.md");
    // The 1 MB log was indexed: it is found.
    const search = (await (
      await call(
        "GET",
        `/api/memory/search?q=${encodeURIComponent("build logs failed")}&mode=lexical&limit=20`,
      )
    ).json()) as { data: { hits: Array<{ path: string }> } };
    expect(search.data.hits.map((hit) => hit.path)).toContain("logs/2026-01-01.md");
  }, 180_000);
});
