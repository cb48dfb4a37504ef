import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createFakeCellBackend } from "../support/fake-cell.js";
import { reply } from "../support/model-server.js";
import { startTelegramServer, type TelegramServer, telegramIntegration } from "../support/telegram-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// Spend caps through the whole product: HTTP → warden → the user's bwrap cell → the model proxy → the scripted
// model server over real HTTP, which reports large usage: 2000 tokens in, 800 out. At $1 / $10 per million
// tokens every answered call costs exactly $0.01.
const USAGE = { prompt_tokens: 2000, completion_tokens: 800 };
const CALL_COST = 0.01;
const SECRET = "budget-webhook-secret";

let h: WardenHarness;
let bot: TelegramServer;
let admin: ReturnType<typeof api>;

beforeAll(async () => {
  bot = await startTelegramServer();
  h = await startWardenHarness({
    backend: createFakeCellBackend(),
    configure: (config) => ({
      ...config,
      pricing: {
        local: {
          "test-model": { input: 1, output: 10, cached_input: 0.1 },
          // Memory indexing embeds through the proxy too; priced (at nothing) so a cap admits it.
          "test-embed": { input: 0, output: 0 },
        },
      },
      budgets: { ...config.budgets, default_max_tokens: 1000 },
      integrations: telegramIntegration(bot, SECRET),
    }),
  });
  admin = api(h.url, (await h.warden.context.users.add("boss", { admin: true })).token);
}, 60_000);
afterAll(async () => {
  await h?.close();
  await bot?.close();
});

type Json = Record<string, unknown>;
const json = async (response: Response) => (await response.json()) as { data: Json; error?: Json };
const list = async (response: Response) => ((await response.json()) as { data: Json[] }).data;
const completion = (call: ReturnType<typeof api>, stream = false) =>
  call("POST", "/v1/chat/completions", {
    model: "assistant",
    messages: [{ role: "user", content: "What is on today?" }],
    ...(stream ? { stream: true } : {}),
  });

describe("a user's daily cap at the model proxy", () => {
  let ada: ReturnType<typeof api>;
  let spentBefore = 0;

  beforeAll(async () => {
    ada = api(h.url, await h.addUser("ada"));
    // Pair ada's Telegram chat, so her alerts have somewhere to go.
    const code = (await json(await ada("POST", "/api/channels/pairing-code"))).data.code as string;
    await fetch(`${h.url}/channels/telegram/family`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-telegram-bot-api-secret-token": SECRET },
      body: JSON.stringify({
        update_id: 1,
        message: {
          message_id: 1,
          date: 1,
          text: `/pair ${code}`,
          chat: { id: 42, type: "private" },
          from: { id: 42 },
        },
      }),
    });
    await bot.waitForMessages(1, 30_000);
    const set = await admin("PUT", "/api/budgets", { user: "ada", daily_usd: 0.035 });
    expect(set.status).toBe(200);
    expect((await json(set)).data).toMatchObject({ party: "user:ada", daily_usd: 0.035, monthly_usd: null });
  }, 60_000);

  it("answers until the cap, then 429 budget_exceeded; the model server gets nothing after the refusal", async () => {
    h.model.reset();
    h.model.respondWith(() => reply.text("A quiet day.", { usage: USAGE }));
    const statuses: number[] = [];
    let refusal: Json = {};
    for (let i = 0; i < 6 && statuses.at(-1) !== 429; i++) {
      const response = await completion(ada);
      statuses.push(response.status);
      const body = (await response.json()) as Json;
      if (response.status === 429) refusal = body;
      else expect((body.choices as Json[])[0]).toMatchObject({ message: { content: "A quiet day." } });
    }
    const answered = statuses.filter((s) => s === 200).length;
    expect(answered).toBeGreaterThanOrEqual(2);
    expect(statuses).toEqual([...Array(answered).fill(200), 429]);
    expect(refusal).toEqual({
      error: {
        type: "budget_exceeded",
        code: "budget_exceeded",
        param: null,
        message: expect.stringMatching(
          /^budget exceeded: daily budget of \$0\.035 for user ada reached \(\$0\.0[23] spent; this call could cost up to \$0\.\d+\)\. It renews at midnight \(UTC\)/,
        ),
      },
    });
    const seen = h.model.chatRequests().length;
    expect(seen).toBe(answered);
    // Under a cap a call without max_tokens is sent with [budgets] default_max_tokens, the output it reserved.
    for (const request of h.model.chatRequests()) expect(request.max_tokens).toBe(1000);
    // Refused again, streaming or not, and still nothing reaches the provider.
    expect((await completion(ada)).status).toBe(429);
    const streamed = await completion(ada, true);
    expect(streamed.status).toBe(429);
    expect(((await streamed.json()) as { error: Json }).error.type).toBe("budget_exceeded");
    expect(h.model.chatRequests().length).toBe(seen);

    const overview = (await json(await ada("GET", "/api/budgets"))).data;
    const day = (overview.status as Json[]).find((s) => s.period === "day") as Json;
    spentBefore = day.spent_usd as number;
    expect(spentBefore).toBeCloseTo(answered * CALL_COST, 9);
    expect(spentBefore).toBeLessThanOrEqual(0.035 + CALL_COST);
    expect(day.reserved_usd).toBe(0);
  }, 60_000);

  it("ends a chat turn with the budget's message, keeps the cell running, and answers again once raised", async () => {
    const cell = h.warden.context.cells.running("ada");
    expect(cell).toBeDefined();
    const refused = (await json(await ada("POST", "/api/chat", { text: "one more?" }))).data;
    expect(refused.stop_reason).toBe("error");
    expect(refused.error).toMatch(/^budget exceeded: daily budget of \$0\.035 for user ada reached/);
    const session = (await json(await ada("GET", `/api/sessions/${refused.session_id}`))).data;
    expect((session.entries as Json[]).at(-1)).toMatchObject({ role: "error", content: refused.error });
    expect(h.warden.context.cells.running("ada")).toBe(cell);

    expect((await admin("PUT", "/api/budgets", { user: "ada", daily_usd: 1 })).status).toBe(200);
    const answered = (await json(await ada("POST", "/api/chat", { text: "and now?" }))).data;
    expect(answered.text).toBe("A quiet day.");
    expect(h.warden.context.cells.running("ada")).toBe(cell);
  }, 60_000);

  it("records every call with its agent and session, and reports spend by day, agent and session", async () => {
    const byAgent = (await json(await ada("GET", "/api/usage?by=agent"))).data;
    const assistant = (byAgent.rows as Json[]).find((r) => r.key === "assistant") as Json;
    expect(assistant.calls).toBeGreaterThanOrEqual(3);
    expect(assistant.refused).toBeGreaterThanOrEqual(4);
    expect(assistant.cost_usd).toBeCloseTo(spentBefore + CALL_COST, 9);
    expect(assistant.estimated).toBe(0);
    const sessions = await list(await ada("GET", "/api/sessions"));
    const bySession = (await json(await ada("GET", "/api/usage?by=session"))).data;
    const keys = (bySession.rows as Json[]).map((r) => r.key);
    for (const s of sessions) expect(keys).toContain(s.id);
    const byDay = (await json(await ada("GET", "/api/usage?by=day"))).data;
    expect((byDay.rows as Json[]).length).toBe(1);
    // A user sees only their own usage, whatever they ask for.
    const other = (await json(await ada("GET", "/api/usage?by=user&user=boss"))).data;
    expect((other.rows as Json[]).map((r) => r.key)).toEqual(["ada"]);
    const bad = await ada("GET", "/api/usage?by=planet");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(
      /by.*must be one of day/,
    );
  });

  it("sends each alert once: to the user's chat and to the UI's alert feed", async () => {
    const alerts = await list(await ada("GET", "/api/budgets/alerts"));
    const levels = alerts.map((a) => a.level);
    expect(levels).toContain("50");
    expect(levels).toContain("80");
    expect(levels).toContain("refused");
    expect(new Set(levels).size).toBe(levels.length);
    const texts = bot.sentMessages().map((m) => String(m.text));
    expect(
      texts.filter((t) => t.startsWith("Budget: 50% of the daily budget of $0.035 for user ada")),
    ).toHaveLength(1);
    expect(texts.filter((t) => t.startsWith("Budget: a model call was refused"))).toHaveLength(1);
    const newer = await list(await ada("GET", `/api/budgets/alerts?after=${alerts.at(-1)?.id}`));
    expect(newer).toEqual([]);
  });
});

describe("concurrent turns of one user", () => {
  it("never let more calls through than the cap admits, however many run at once", async () => {
    const cai = api(h.url, await h.addUser("cai"));
    h.model.reset();
    h.model.respondWith(() => reply.text("Fine.", { usage: USAGE, delayMs: 30 }));
    // A first turn starts the cell (and spends $0.01); the cap then leaves room for three more calls at most.
    expect((await json(await cai("POST", "/api/chat", { text: "warm up" }))).data.text).toBe("Fine.");
    expect((await admin("PUT", "/api/budgets", { user: "cai", daily_usd: 0.045 })).status).toBe(200);
    h.model.reset();
    h.model.respondWith(() => reply.text("Fine.", { usage: USAGE, delayMs: 30 }));
    const turns = await Promise.all(
      Array.from({ length: 20 }, (_, i) => cai("POST", "/api/chat", { text: `question ${i}` }).then(json)),
    );
    const answered = turns.filter((t) => t.data.text === "Fine.").length;
    const refused = turns.filter((t) => String(t.data.error).startsWith("budget exceeded:")).length;
    expect(answered + refused).toBe(20);
    expect(answered).toBeGreaterThanOrEqual(1);
    expect(answered).toBeLessThanOrEqual(3);
    expect(h.model.chatRequests().length).toBe(answered);
    const day = ((await json(await cai("GET", "/api/budgets"))).data.status as Json[])[0] as Json;
    expect(day.spent_usd).toBeCloseTo((answered + 1) * CALL_COST, 9);
    expect(day.spent_usd as number).toBeLessThanOrEqual(0.045);
    expect(day.reserved_usd).toBe(0);
  }, 60_000);
});

describe("who may change a budget", () => {
  it("lets only an admin set or clear caps, and names the field of a bad request", async () => {
    const eve = api(h.url, await h.addUser("eve"));
    expect((await eve("PUT", "/api/budgets", { user: "eve", daily_usd: 100 })).status).toBe(403);
    expect((await eve("DELETE", "/api/budgets?user=eve")).status).toBe(403);
    const negative = await admin("PUT", "/api/budgets", { user: "eve", daily_usd: -1 });
    expect(negative.status).toBe(400);
    expect(((await negative.json()) as { error: { message: string } }).error.message).toMatch(
      /body\.daily_usd: must be at least 0/,
    );
    const nobody = await admin("PUT", "/api/budgets", { daily_usd: 1 });
    expect(((await nobody.json()) as { error: { message: string } }).error.message).toMatch(
      /body\.user: is required/,
    );
    const ghost = await admin("PUT", "/api/budgets", { user: "ghost", daily_usd: 1 });
    expect(ghost.status).toBe(404);
    const zone = await admin("PUT", "/api/budgets", { user: "eve", timezone: "Mars/Olympus" });
    expect(((await zone.json()) as { error: { message: string } }).error.message).toMatch(
      /body\.timezone: must be an IANA/,
    );
    expect(
      (await admin("PUT", "/api/budgets", { user: "eve", monthly_usd: 5, timezone: "Europe/Paris" })).status,
    ).toBe(200);
    const cleared = await admin("DELETE", "/api/budgets?user=eve");
    expect((await json(cleared)).data).toEqual({ cleared: 1 });
    const audit = await list(await admin("GET", "/api/audit?action=budget.set&user=eve"));
    expect(audit[0]).toMatchObject({ actor: "user:boss", detail: { party: "user:eve", monthly_usd: 5 } });
  });
});

describe("a cron job's cap", () => {
  it("holds the job's own calls, labelled by the cell, and leaves the user's chat alone", async () => {
    const jo = api(h.url, await h.addUser("jo"));
    const jobs = '[[jobs]]\nid = "nightly"\nschedule = "0 3 * * *"\nprompt = "Summarise the day."\n';
    expect((await jo("PUT", "/api/brain/file", { path: "cron/jobs.toml", content: jobs })).status).toBe(200);
    expect(
      (await admin("PUT", "/api/budgets", { user: "jo", job: "nightly", daily_usd: 0.015 })).status,
    ).toBe(200);
    h.model.reset();
    h.model.respondWith(() => reply.text("Summary.", { usage: USAGE }));
    const { cell } = await h.warden.context.cells.get("jo");
    const run = () => cell.call({ type: "JobTrigger", job_id: "nightly" }, { timeoutMs: 60_000 });
    expect(await run()).toMatchObject({ type: "JobStatus", status: "succeeded" });
    const second = await run();
    expect(second).toMatchObject({ type: "JobStatus", status: "failed" });
    expect(second.type === "JobStatus" && second.error).toMatch(
      /budget exceeded: daily budget of \$0\.015 for cron job nightly of user jo reached \(\$0\.01 spent;/,
    );
    expect(h.model.chatRequests()).toHaveLength(1);
    expect((await json(await jo("POST", "/api/chat", { text: "still there?" }))).data.text).toBe("Summary.");
    const byJob = (await json(await jo("GET", "/api/usage?by=job"))).data.rows as Json[];
    // The chat's call and the memory index's embeddings are no job's; the job's two calls are its own.
    expect(byJob.map((r) => [r.key, r.refused])).toEqual([
      ["(none)", 0],
      ["nightly", 1],
    ]);
    expect(byJob.find((r) => r.key === "nightly")?.calls).toBe(1);
    const byModel = (await json(await jo("GET", "/api/usage?by=model"))).data.rows as Json[];
    expect(byModel.find((r) => r.key === "local test-model")).toMatchObject({ calls: 2, refused: 1 });
  }, 60_000);
});

describe("cached input", () => {
  it("charges the prompt's cached part at the cached-input price the provider's usage reports", async () => {
    const cy = api(h.url, await h.addUser("cy"));
    h.model.reset();
    const usage = { ...USAGE, prompt_tokens_details: { cached_tokens: 1500 } };
    h.model.respondWith(() => reply.text("Cheaper.", { usage }));
    expect((await json(await cy("POST", "/api/chat", { text: "again, please" }))).data.text).toBe("Cheaper.");
    const rows = (await json(await cy("GET", "/api/usage?by=model"))).data.rows as Json[];
    const total = rows.find((r) => r.key === "local test-model") as Json;
    // 500 uncached at $1, 1500 cached at $0.10 and 800 out at $10 per million tokens.
    expect(total).toMatchObject({
      calls: 1,
      input_tokens: 2000,
      cached_input_tokens: 1500,
      output_tokens: 800,
    });
    expect(total.cost_usd).toBeCloseTo(0.0005 + 0.00015 + 0.008, 9);
  }, 60_000);
  it("records the memory index's embeddings through the proxy as calls of their own", async () => {
    // The index embeds the last turn's transcript after the turn has answered, so a call can still be open
    // (counted, not yet settled) when the report is read: wait until every call the report counts is settled.
    await vi.waitFor(
      async () => {
        const rows = (await json(await admin("GET", "/api/usage?by=model&user=cy"))).data.rows as Json[];
        const embeddings = rows.find((r) => r.key === "local test-embed") as Json;
        expect(embeddings.calls).toBeGreaterThan(0);
        expect(embeddings.estimated).toBe(embeddings.calls);
        expect(embeddings.cost_usd).toBe(0);
      },
      { timeout: 30_000, interval: 100 },
    );
  });
});
