import { execFile, execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { encodeFrame } from "../../src/channel/index.js";
import { createLogger } from "../../src/core/index.js";
import { startWarden, type Warden } from "../../src/warden/index.js";
import { type ModelServer, startModelServer } from "../support/model-server.js";
import { api, HOST_KEY, testBackend } from "../support/warden-harness.js";

// A compromised agent: the shell test handler runs each message with bash in the cell exactly as the agent's
// bash tool does, and `!raw <base64>` writes bytes onto the cell's channel as a runtime taken over would. It
// tries to reach the budgets, prices and usage records, and to have its calls charged to someone else.

let warden: Warden;
let model: ModelServer;
let home = "";
let gus: ReturnType<typeof api>;
let gusToken = "";

beforeAll(async () => {
  model = await startModelServer();
  home = await mkdtemp(join(tmpdir(), "ironclaw-budget-guest-"));
  warden = await startWarden({
    home,
    host: "127.0.0.1",
    port: 0,
    env: { TEST_MODEL_KEY: HOST_KEY },
    logger: createLogger("warden-test", { level: "silent" }),
    backend: testBackend(),
    cellSpec: { startTimeoutMs: 90_000, handler: "shell" },
    configure: (config) => ({
      ...config,
      providers: { local: { base_url: model.url, api_key_env: "TEST_MODEL_KEY", models: [] } },
      pricing: { local: { "test-model": { input: 1, output: 10 }, "priced-embed": { input: 1, output: 0 } } },
    }),
  });
  const { users, budget } = warden.context;
  gusToken = (await users.add("gus")).token;
  gus = api(warden.url, gusToken);
  await users.add("ada");
  budget.store.setCap({ kind: "user", user: "gus" }, "day", 10_000, "test");
  budget.store.setCap({ kind: "user", user: "ada" }, "day", 5_000_000, "test");
}, 120_000);
afterAll(async () => {
  await warden?.close();
  await model?.close();
  await rm(home, { recursive: true, force: true });
});

const shell = async (command: string) => {
  const answer = (await (await gus("POST", "/api/chat", { text: command })).json()) as {
    data: { text: string };
  };
  return JSON.parse(answer.data.text) as { exit: number; stdout: string; stderr: string };
};
/** What a guest could want changed, as the warden holds it. */
const state = () => {
  const db = warden.context.db;
  return {
    caps: db.prepare("SELECT party, period, limit_micros FROM budget_caps ORDER BY 1, 2").all(),
    spend: db.prepare("SELECT * FROM budget_spend ORDER BY 1, 2").all(),
    usage: db.prepare("SELECT count(*) AS n FROM usage_calls").get(),
  };
};

describe("a guest and the budget", () => {
  it("cannot read or write host.db from its bash: the same probe on the host finds the file", async () => {
    const probe = `head -c 15 ${join(home, "host.db")} && echo && echo probe-ran`;
    const before = state();
    const inCell = await shell(`${probe}; echo probe-ran; echo x >> ${join(home, "host.db")}`);
    expect(inCell.stdout).toContain("probe-ran");
    expect(inCell.stdout).not.toContain("SQLite format 3");
    // The positive control: where the file is reachable, the probe reads its header.
    expect(execFileSync("sh", ["-c", probe]).toString()).toContain("SQLite format 3");
    expect(state()).toEqual(before);
  }, 120_000);

  it("cannot reach the warden's budget routes, even with its owner's token: the same request from the host does", async () => {
    const url = `${warden.url}/api/budgets`;
    const script =
      "fetch(process.argv[1], { method: 'PUT', signal: AbortSignal.timeout(10000), headers: { authorization: " +
      `'Bearer ${gusToken}', 'content-type': 'application/json' }, body: JSON.stringify({ user: 'gus', daily_usd: 1000 }) })` +
      ".then(r => console.log('STATUS', r.status), e => console.log('UNREACHABLE', e.cause?.code ?? e.message))";
    const before = state();
    const inCell = await shell(`node -e "${script}" ${url}`);
    expect(inCell.stdout).toMatch(/UNREACHABLE/);
    expect(inCell.stdout).not.toMatch(/STATUS/);
    // Asynchronously: this process serves the warden, which must answer while the probe waits.
    const fromHost = await promisify(execFile)(process.execPath, ["-e", script, url]);
    // Reachable from the host, where the route itself refuses: only an admin sets a budget.
    expect(fromHost.stdout).toMatch(/STATUS 403/);
    expect(state()).toEqual(before);
  }, 60_000);

  it("has its crafted frames refused and audited; nothing reaches the provider, no budget or record changes", async () => {
    const before = state();
    const header = { session_id: "cell", timestamp: new Date().toISOString() };
    const request = {
      type: "ModelRequest",
      provider: "local",
      model: "test-model",
      messages: [{ role: "user", content: "spend someone else's money" }],
    };
    // A ModelRequest that carries its own price and usage: the contract has no such fields.
    const priced = encodeFrame({
      ...header,
      ...request,
      user_id: "gus",
      msg_id: 900_000,
      cost_usd: 0,
      usage: {},
    });
    // A message type that would set a budget: the protocol has none.
    const budgetSet = encodeFrame({
      ...header,
      type: "BudgetSet",
      user_id: "gus",
      msg_id: 900_001,
      daily_usd: 1e6,
    });
    const raw = `!raw ${Buffer.concat([priced, budgetSet]).toString("base64")}`;
    expect((await gus("POST", "/api/chat", { text: raw })).status).toBe(200);

    // A valid ModelRequest naming another user, to be charged to ada. Its msg_id runs ahead of the guest's
    // own counter, so the channel is spoilt afterwards: the cell is stopped once the refusal is seen.
    const spoof = encodeFrame({ ...header, ...request, user_id: "ada", msg_id: 1_000_000 });
    const pending = gus("POST", "/api/chat", { text: `!raw ${spoof.toString("base64")}` }).catch(
      () => undefined,
    );
    const audit = warden.context.audit;
    for (let i = 0; i < 200 && audit.list({ userId: "gus", action: "model.refused" }).length === 0; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await warden.context.cells.stop("gus");
    await pending;

    expect(audit.list({ userId: "gus", action: "model.refused" })[0]?.detail).toMatchObject({
      claimed_user: "ada",
      reason: "this cell belongs to gus, not to ada",
    });
    const protocol = audit
      .list({ userId: "gus", action: "protocol.refused" })
      .map((e) => String(e.detail.reason));
    expect(protocol.some((r) => /cost_usd|usage|Unrecognized key/.test(r))).toBe(true);
    expect(protocol.some((r) => /BudgetSet/.test(r))).toBe(true);
    expect(model.chatRequests()).toHaveLength(0);
    expect(state()).toEqual(before);
  }, 120_000);

  it("has its embeddings capped like its model calls: an unpriced model refused before the provider, a priced one charged", async () => {
    const header = { session_id: "cell", timestamp: new Date().toISOString(), user_id: "gus" };
    const embed = (msg_id: number, model: string) =>
      encodeFrame({ ...header, type: "EmbedRequest", msg_id, provider: "local", model, texts: ["a note"] });
    const embeddings = () => model.requests.filter((r) => r.path.endsWith("/embeddings"));
    const before = embeddings().length;
    // Run-ahead msg_ids spoil the channel afterwards, so the cell is stopped once both are answered.
    const frames = Buffer.concat([embed(500_000, "unpriced-embed"), embed(500_001, "priced-embed")]);
    const pending = gus("POST", "/api/chat", { text: `!raw ${frames.toString("base64")}` }).catch(
      () => undefined,
    );
    const charged = () =>
      warden.context.db
        .prepare("SELECT model, state, estimated, input_tokens, cost_micros FROM usage_calls WHERE model = ?")
        .all("priced-embed") as Array<{
        state: string;
        estimated: number;
        input_tokens: number;
        cost_micros: number;
      }>;
    for (let i = 0; i < 200 && charged()[0]?.state !== "done"; i++)
      await new Promise((resolve) => setTimeout(resolve, 50));
    await warden.context.cells.stop("gus");
    await pending;
    const refused = warden.context.audit.list({ userId: "gus", action: "budget.refused" });
    expect(refused.map((e) => e.detail)).toContainEqual(
      expect.objectContaining({ model: "unpriced-embed", kind: "unpriced" }),
    );
    // Only the priced model reached the provider (its dimension probe and the texts).
    const models = embeddings()
      .slice(before)
      .map((r) => (r.body as { model: string }).model);
    expect(models.length).toBeGreaterThan(0);
    expect(new Set(models)).toEqual(new Set(["priced-embed"]));
    expect(charged()).toEqual([
      expect.objectContaining({ state: "done", estimated: 1, input_tokens: expect.any(Number) }),
    ]);
    expect(charged()[0]?.cost_micros).toBe(charged()[0]?.input_tokens);
  }, 120_000);
});
