import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ironclawdConfigSchema } from "../../src/contracts/index.js";
import { usageReport } from "../../src/warden/budget/budget-admin.js";
import { type Admission, ModelBudget, type ModelCallStart } from "../../src/warden/budget/budget-guard.js";
import { openHostDb } from "../../src/warden/host-db.js";

// A call is charged at most what it reserved, whatever its provider streams or reports; what the provider says
// beyond that is kept beside the charge, flagged. Prices: $1 per million input tokens, $10 per million output,
// so 1 token in = 1 µUSD, out = 10 µUSD. The prompt (300 bytes) is 104 estimated tokens: with max_tokens 1000
// the reservation is 104 + 10000 µUSD.

let home = "";
let db: Database.Database;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "ironclaw-overrun-"));
  db = openHostDb(home);
});
afterEach(() => {
  db.close();
  rmSync(home, { recursive: true, force: true });
});

const RESERVED = 10_104;
const budgetOf = () =>
  new ModelBudget({
    db,
    config: ironclawdConfigSchema.parse({ pricing: { local: { "test-model": { input: 1, output: 10 } } } }),
    owner: "test/1/1",
  });
const call = (over: Partial<ModelCallStart> = {}): ModelCallStart => ({
  userId: "alice",
  provider: "local",
  model: "test-model",
  messages: [{ role: "user", content: "x".repeat(300) }],
  maxTokens: 1000,
  ...over,
});
const admitted = (admission: Admission) => {
  if (!admission.ok) throw new Error(admission.refusal.message);
  return admission;
};
const spentToday = (budget: ModelBudget) =>
  budget.store.db
    .prepare<[], { spent: number }>(
      "SELECT spent_micros AS spent FROM budget_spend WHERE party = 'user:alice' AND period_key LIKE 'day:%'",
    )
    .get()?.spent;
const rowOf = (budget: ModelBudget) =>
  budget.store.db.prepare<[], Record<string, unknown>>("SELECT * FROM usage_calls").get() ?? {};

describe("a call past its reservation", () => {
  it("is charged its reservation when the provider reports 20,000 tokens out on 1000, and the report is kept", () => {
    const budget = budgetOf();
    budget.store.setCap({ kind: "user", user: "alice" }, "day", 15_000, "test");
    const admission = admitted(budget.admit(call()));
    const overrun = budget.settle(admission, call(), {
      state: "done",
      usage: { input_tokens: 100, output_tokens: 20_000 },
      reply: { content: "short", toolCalls: [] },
      accepted: true,
      ms: 5,
    });
    expect(overrun).toEqual({
      cut: false,
      reservedMicros: RESERVED,
      chargedMicros: RESERVED,
      reported: { inputTokens: 100, outputTokens: 20_000, costMicros: 200_100 },
    });
    expect(spentToday(budget)).toBe(RESERVED);
    expect(rowOf(budget)).toMatchObject({
      cost_micros: RESERVED,
      input_tokens: 104,
      output_tokens: 1000,
      cut: 0,
      provider_input_tokens: 100,
      provider_output_tokens: 20_000,
      provider_cost_micros: 200_100,
    });
    const report = usageReport(budget, { by: "day" });
    expect(report.total).toMatchObject({ cost_usd: 0.010104, overruns: 1, over_reported_usd: 0.189996 });
  });

  it("is charged at most its reservation when the warden cut it, estimated from what streamed", () => {
    const budget = budgetOf();
    const admission = admitted(budget.admit(call()));
    const overrun = budget.settle(admission, call(), {
      state: "done",
      reply: { content: "tide".repeat(800), toolCalls: [] },
      accepted: true,
      ms: 5,
      streamedOutputTokens: 1067,
      cut: true,
    });
    expect(overrun).toEqual({ cut: true, reservedMicros: RESERVED, chargedMicros: RESERVED });
    expect(rowOf(budget)).toMatchObject({
      cost_micros: RESERVED,
      output_tokens: 1000,
      estimated: 1,
      cut: 1,
      provider_cost_micros: null,
    });
    expect(usageReport(budget, { by: "day" }).total).toMatchObject({ overruns: 1, over_reported_usd: 0 });
  });

  it("leaves a call within its reservation as reported, unflagged", () => {
    const budget = budgetOf();
    const admission = admitted(budget.admit(call()));
    const overrun = budget.settle(admission, call(), {
      state: "done",
      usage: { input_tokens: 100, output_tokens: 900 },
      reply: { content: "", toolCalls: [] },
      accepted: true,
      ms: 5,
      streamedOutputTokens: 880,
      cut: false,
    });
    expect(overrun).toBeUndefined();
    expect(rowOf(budget)).toMatchObject({ cost_micros: 9100, cut: 0, provider_cost_micros: null });
    expect(usageReport(budget, { by: "day" }).total).toMatchObject({ overruns: 0, over_reported_usd: 0 });
  });

  it("is charged as reported when no max_tokens bounded it (no cap, none asked for)", () => {
    const budget = budgetOf();
    const uncapped = call({ maxTokens: undefined });
    delete uncapped.maxTokens;
    const admission = admitted(budget.admit(uncapped));
    expect(admission.maxTokens).toBeUndefined();
    const overrun = budget.settle(admission, uncapped, {
      state: "done",
      usage: { input_tokens: 100, output_tokens: 20_000 },
      reply: { content: "", toolCalls: [] },
      accepted: true,
      ms: 5,
    });
    expect(overrun).toBeUndefined();
    expect(rowOf(budget)).toMatchObject({ cost_micros: 200_100, cut: 0 });
  });
});
