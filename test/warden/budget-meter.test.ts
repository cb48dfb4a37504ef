import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type IronclawdConfigInput, ironclawdConfigSchema } from "../../src/contracts/index.js";
import { type Admission, ModelBudget, type ModelCallStart } from "../../src/warden/budget/budget-guard.js";
import { openHostDb } from "../../src/warden/host-db.js";

// The budget against a real host.db: reservations, settlement, caps per party, refusals, unpriced models.
// Prices: $1 per million input tokens and $10 per million output tokens, so 1 token in = 1 µUSD, out = 10 µUSD.

let home = "";
let db: Database.Database;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "ironclaw-budget-"));
  db = openHostDb(home);
});
afterEach(() => {
  db.close();
  rmSync(home, { recursive: true, force: true });
});

function budgetOf(budgets: IronclawdConfigInput["budgets"] = {}, now?: () => number) {
  const config = ironclawdConfigSchema.parse({
    pricing: { local: { "test-model": { input: 1, output: 10 } } },
    budgets,
  });
  return new ModelBudget({ db, config, owner: "test/1/1", ...(now ? { now } : {}) });
}

// 300 bytes of prompt: 4 + 100 = 104 estimated tokens; with max_tokens 1000 the worst case is 104 + 10000 µUSD.
const call = (over: Partial<ModelCallStart> = {}): ModelCallStart => ({
  userId: "alice",
  agent: "assistant",
  provider: "local",
  model: "test-model",
  messages: [{ role: "user", content: "x".repeat(300) }],
  maxTokens: 1000,
  ...over,
});
const WORST = 10_104;

/** Settles an admitted call as the provider would report it: 100 tokens in, 900 out = 9100 µUSD. */
function finish(budget: ModelBudget, admission: Admission, c = call(), usage = { in: 100, out: 900 }) {
  if (!admission.ok) throw new Error(`refused: ${admission.refusal.message}`);
  budget.settle(admission, c, {
    state: "done",
    usage: { input_tokens: usage.in, output_tokens: usage.out },
    reply: { content: "", toolCalls: [] },
    accepted: true,
    ms: 5,
  });
}

const spendOf = (budget: ModelBudget, key: string) => {
  const status = budget.store.db
    .prepare<[string], { spent: number; reserved: number }>(
      "SELECT sum(spent_micros) AS spent, sum(reserved_micros) AS reserved FROM budget_spend WHERE party = ? AND period_key LIKE 'day:%'",
    )
    .get(key);
  return { spent: status?.spent ?? 0, reserved: status?.reserved ?? 0 };
};

describe("a daily cap at the model proxy", () => {
  it("admits calls until the cap, refuses the next one with the numbers, and spend never passes the cap", () => {
    const budget = budgetOf();
    budget.store.setCap({ kind: "user", user: "alice" }, "day", 30_000, "test");
    const admitted: boolean[] = [];
    let refusal = "";
    for (let i = 0; i < 5; i++) {
      const admission = budget.admit(call());
      admitted.push(admission.ok);
      if (admission.ok) finish(budget, admission);
      else refusal = admission.refusal.message;
    }
    expect(admitted).toEqual([true, true, true, false, false]);
    expect(spendOf(budget, "user:alice")).toEqual({ spent: 27_300, reserved: 0 });
    expect(refusal).toBe(
      "budget exceeded: daily budget of $0.03 for user alice reached ($0.0273 spent; this call could cost up to " +
        "$0.010104). It renews at midnight (UTC); an admin can raise it: ironclaw budget set --user alice --daily-usd <dollars>",
    );
    const report = budget.usage.report("user");
    expect(report.rows).toEqual([
      expect.objectContaining({ key: "alice", calls: 3, refused: 2, costMicros: 27_300, outputTokens: 2700 }),
    ]);
  });

  it("holds each call's worst case while it runs, so calls in flight can never together pass the cap", () => {
    const budget = budgetOf();
    budget.store.setCap({ kind: "user", user: "alice" }, "day", 30_000, "test");
    const inFlight = Array.from({ length: 5 }, () => budget.admit(call()));
    expect(inFlight.map((a) => a.ok)).toEqual([true, true, false, false, false]);
    expect(spendOf(budget, "user:alice")).toEqual({ spent: 0, reserved: 2 * WORST });
    // The first ends at less than it held: the rest is released, and room opens for another call.
    finish(budget, inFlight[0] as Admission);
    expect(spendOf(budget, "user:alice")).toEqual({ spent: 9100, reserved: WORST });
    expect(budget.admit(call()).ok).toBe(true);
    expect(budget.admit(call()).ok).toBe(false);
  });

  it("reserves [budgets] default_max_tokens for a call without max_tokens, and asks the provider for no more", () => {
    const budget = budgetOf({ default_max_tokens: 500 });
    const free = budget.admit(call({ maxTokens: undefined }));
    expect(free.ok && free.maxTokens).toBeUndefined();
    budget.store.setCap({ kind: "user", user: "alice" }, "day", 1_000_000, "test");
    const capped = budget.admit(call({ maxTokens: undefined }));
    expect(capped.ok && capped.maxTokens).toBe(500);
    expect(capped.ok && capped.reservation.worstMicros).toBe(104 + 5000);
  });

  it("counts what the day spent before a cap was set", () => {
    const budget = budgetOf();
    for (let i = 0; i < 2; i++) finish(budget, budget.admit(call()));
    budget.store.setCap({ kind: "user", user: "alice" }, "day", 20_000, "test");
    const admission = budget.admit(call());
    expect(admission.ok).toBe(false);
    expect(!admission.ok && admission.refusal.message).toMatch(/\(\$0\.0182 spent;/);
  });

  it("applies an agent's and a job's cap to their own calls only, and names the cap that refuses", () => {
    const budget = budgetOf();
    budget.store.setCap({ kind: "agent", user: "alice", name: "research" }, "day", 12_000, "test");
    budget.store.setCap({ kind: "job", user: "alice", name: "nightly" }, "day", 12_000, "test");
    finish(budget, budget.admit(call({ agent: "research" })));
    const research = budget.admit(call({ agent: "research" }));
    expect(!research.ok && research.refusal.message).toMatch(
      /daily budget of \$0\.012 for agent research of user alice/,
    );
    finish(budget, budget.admit(call({ agent: "assistant", job: "nightly" })));
    const job = budget.admit(call({ agent: "assistant", job: "nightly" }));
    expect(!job.ok && job.refusal.message).toMatch(
      /for cron job nightly of user alice reached .*--user alice --job nightly/,
    );
    // Other agents and plain chat are not held by either cap.
    expect(budget.admit(call({ agent: "assistant" })).ok).toBe(true);
  });

  it("caps the whole host across users", () => {
    const budget = budgetOf();
    budget.store.setCap({ kind: "host" }, "day", 20_000, "test");
    finish(budget, budget.admit(call({ userId: "alice" })));
    const bob = budget.admit(call({ userId: "bob" }));
    expect(bob.ok).toBe(true);
    const carol = budget.admit(call({ userId: "carol" }));
    expect(!carol.ok && carol.refusal.message).toMatch(/daily budget of \$0\.02 for this host reached/);
  });
});

describe("models without a price", () => {
  it("are refused under a budget, before dispatch, with what the operator can do", () => {
    const budget = budgetOf();
    expect(budget.admit(call({ model: "mystery" })).ok).toBe(true);
    budget.store.setCap({ kind: "user", user: "alice" }, "month", 5_000_000, "test");
    const refused = budget.admit(call({ model: "mystery" }));
    expect(refused.ok).toBe(false);
    expect(!refused.ok && refused.refusal.kind).toBe("unpriced");
    expect(!refused.ok && refused.refusal.message).toMatch(
      /^budget refused: model mystery on provider local has no price, .*\[pricing\.local\."mystery"\].*allow_unpriced = true$/,
    );
  });

  it("pass at $0 when the operator allows unpriced models, and are recorded as unpriced", () => {
    const budget = budgetOf({ allow_unpriced: true });
    budget.store.setCap({ kind: "user", user: "alice" }, "day", 1, "test");
    const admission = budget.admit(call({ model: "mystery" }));
    finish(budget, admission, call({ model: "mystery" }));
    expect(budget.usage.report("model").rows).toEqual([
      expect.objectContaining({ key: "local mystery", calls: 1, unpriced: 1, costMicros: 0 }),
    ]);
  });
});

describe("settling a call", () => {
  it("estimates the cost from the prompt and the text when the stream carried no usage, and says so", () => {
    const budget = budgetOf();
    const admission = budget.admit(call());
    if (!admission.ok) throw new Error("refused");
    budget.settle(admission, call(), {
      state: "done",
      reply: { content: "y".repeat(30), toolCalls: [] },
      accepted: true,
      ms: 3,
    });
    expect(budget.usage.call(admission.reservation.id)).toMatchObject({
      state: "done",
      estimated: 1,
      input_tokens: 104,
      output_tokens: 10,
      cost_micros: 104 + 100,
      reserved_micros: WORST,
    });
  });

  it("charges nothing for a request the provider never accepted", () => {
    const budget = budgetOf();
    const admission = budget.admit(call());
    if (!admission.ok) throw new Error("refused");
    budget.settle(admission, call(), {
      state: "error",
      reply: { content: "", toolCalls: [] },
      accepted: false,
      ms: 1,
    });
    expect(budget.usage.call(admission.reservation.id)).toMatchObject({ state: "error", cost_micros: 0 });
    expect(spendOf(budget, "user:alice")).toEqual({ spent: 0, reserved: 0 });
  });

  it("keeps a settled record as it is: a second settlement changes nothing, and SQL cannot rewrite it", () => {
    const budget = budgetOf();
    const admission = budget.admit(call());
    finish(budget, admission);
    finish(budget, admission, call(), { in: 5000, out: 5000 });
    expect(spendOf(budget, "user:alice")).toEqual({ spent: 9100, reserved: 0 });
    const id = admission.ok ? admission.reservation.id : "";
    expect(() => db.prepare("UPDATE usage_calls SET cost_micros = 0 WHERE id = ?").run(id)).toThrow(
      /a settled usage record never changes/,
    );
  });
});
