import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createFakeCellBackend } from "../support/fake-cell.js";
import { reply, startModelServer } from "../support/model-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// A provider that ignores max_tokens, against a real warden, real bwrap cells and the scripted model server over
// real HTTP. At $1 / $15 per million tokens, the 20,000 tokens it streams on a 4,096-token reservation would cost
// $0.30 against a $0.10 daily cap; the warden cuts the stream at the reservation and charges at most that.
const CAP_USD = 0.1;
const OUT_PER_TOKEN_USD = 15 / 1_000_000;
// One chunk of the overrunning script is 50 tokens (200 characters, 67 tokens by the warden's estimate).
const ONE_CHUNK_USD = 67 * OUT_PER_TOKEN_USD;

let h: WardenHarness;
let admin: ReturnType<typeof api>;

beforeAll(async () => {
  h = await startWardenHarness({
    backend: createFakeCellBackend(),
    configure: (config) => ({
      ...config,
      pricing: { local: { "test-model": { input: 1, output: 15 }, "test-embed": { input: 0, output: 0 } } },
      budgets: { ...config.budgets, default_max_tokens: 4096 },
    }),
  });
  admin = api(h.url, (await h.warden.context.users.add("boss", { admin: true })).token);
}, 60_000);
afterAll(async () => {
  await h?.close();
});

type Json = Record<string, unknown>;
const data = async (response: Response) => ((await response.json()) as { data: Json }).data;

async function userUnderCap(name: string) {
  const call = api(h.url, await h.addUser(name));
  expect((await admin("PUT", "/api/budgets", { user: name, daily_usd: CAP_USD })).status).toBe(200);
  return call;
}

async function spentToday(call: ReturnType<typeof api>): Promise<Json> {
  const overview = await data(await call("GET", "/api/budgets"));
  return (overview.status as Json[]).find((s) => s.period === "day") as Json;
}

async function overrunAudits(call: ReturnType<typeof api>): Promise<Json[]> {
  const response = await call("GET", "/api/audit?action=budget.overrun");
  return ((await response.json()) as { data: Array<{ detail: Json }> }).data.map((e) => e.detail);
}

describe("a provider that streams far past max_tokens", () => {
  it("really sends 20,000 tokens to a client that keeps reading (the positive control)", async () => {
    const direct = await startModelServer();
    try {
      direct.enqueue(reply.overrun(20_000));
      const response = await fetch(`${direct.url}/chat/completions`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ model: "test-model", max_tokens: 4096, stream: true, messages: [] }),
      });
      const body = await response.text();
      expect(direct.requests[0]?.sent).toMatchObject({ finished: true, contentChars: 80_000 });
      expect(body).toContain('"completion_tokens":20000');
      // What the provider would bill for that: three times the cap.
      expect(20_000 * OUT_PER_TOKEN_USD).toBeCloseTo(0.3, 9);
    } finally {
      await direct.close();
    }
  });

  it("is cut at the reservation: the turn ends, and spend stays under the cap however often it is tried", async () => {
    const ada = await userUnderCap("ada");
    h.model.reset();
    h.model.respondWith((body) =>
      body.model === "test-model" ? reply.overrun(20_000) : reply.text("unused"),
    );
    const first = await data(await ada("POST", "/api/chat", { text: "write the longest poem you can" }));
    expect(first.stop_reason).toBe("length");
    const text = String(first.text);
    // The warden was asked for 4096 tokens out and passed the provider's stream on until its estimate (three
    // bytes a token) passed them: 12,288 bytes and at most one chunk more.
    expect(text.length).toBeGreaterThan(4096 * 3);
    expect(text.length).toBeLessThanOrEqual(4096 * 3 + 200);
    const asked = h.model.chatRequests();
    expect(asked).toHaveLength(1);
    expect(asked[0]?.max_tokens).toBe(4096);
    // The provider had 80,000 characters to send and was stopped well short of them.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const sent = h.model.requests.find((r) => r.path.endsWith("/chat/completions"))?.sent;
    expect(sent?.finished).toBe(false);
    expect(sent?.contentChars).toBeLessThan(80_000 / 2);

    const after = await spentToday(ada);
    expect(after.reserved_usd).toBe(0);
    expect(after.spent_usd as number).toBeGreaterThan(4096 * OUT_PER_TOKEN_USD);
    expect(after.spent_usd as number).toBeLessThanOrEqual(CAP_USD);

    // Trying again: the next reservation does not fit under the cap, so nothing more reaches the provider.
    for (let i = 0; i < 2; i++) {
      const again = await data(await ada("POST", "/api/chat", { text: "and another" }));
      expect(String(again.error)).toMatch(/^budget exceeded: daily budget of \$0\.10? for user ada/);
    }
    expect(h.model.chatRequests()).toHaveLength(1);
    expect((await spentToday(ada)).spent_usd as number).toBeLessThanOrEqual(CAP_USD + ONE_CHUNK_USD);

    const usage = await data(await ada("GET", "/api/usage?by=model"));
    const row = (usage.rows as Json[]).find((r) => r.key === "local test-model") as Json;
    expect(row).toMatchObject({ overruns: 1, output_tokens: 4096, over_reported_usd: 0 });
    expect(await overrunAudits(ada)).toEqual([
      expect.objectContaining({ provider: "local", model: "test-model", cut: true }),
    ]);
  }, 60_000);
});

describe("a provider that reports more usage than the call reserved", () => {
  it("is charged the reservation; its own figure is recorded beside it, flagged and audited", async () => {
    const bob = await userUnderCap("bob");
    h.model.reset();
    // A short answer that bills 20,000 tokens out, as unseen reasoning would.
    h.model.respondWith(() =>
      reply.text("Done.", { usage: { prompt_tokens: 100, completion_tokens: 20_000 } }),
    );
    const turn = await data(await bob("POST", "/api/chat", { text: "think hard" }));
    expect(turn.text).toBe("Done.");
    // The positive control: the report was sent whole, so the warden read it.
    const sent = h.model.requests.find((r) => r.path.endsWith("/chat/completions"))?.sent;
    expect(sent?.finished).toBe(true);

    const day = await spentToday(bob);
    expect(day.spent_usd as number).toBeLessThanOrEqual(CAP_USD);
    const usage = await data(await bob("GET", "/api/usage?by=model"));
    const row = (usage.rows as Json[]).find((r) => r.key === "local test-model") as Json;
    expect(row.overruns).toBe(1);
    expect(row.cost_usd as number).toBeLessThanOrEqual(CAP_USD);
    // $0.3001 reported, the reservation charged: the rest is shown apart, never spent.
    expect((row.cost_usd as number) + (row.over_reported_usd as number)).toBeCloseTo(0.3001, 6);
    expect(await overrunAudits(bob)).toEqual([
      expect.objectContaining({
        cut: false,
        provider_input_tokens: 100,
        provider_output_tokens: 20_000,
        provider_cost_micros: 300_100,
      }),
    ]);
  }, 60_000);
});
