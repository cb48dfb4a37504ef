import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ironclawdConfigSchema } from "../../src/contracts/index.js";
import { ModelBudget, type ModelCallStart } from "../../src/warden/budget/budget-guard.js";
import { openHostDb } from "../../src/warden/host-db.js";

// Days and months turn over at midnight on the user's own clock. The clock is injected: each test sets the time.

let home = "";
let db: Database.Database;
let now = 0;
beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "ironclaw-budget-windows-"));
  db = openHostDb(home);
});
afterEach(() => {
  db.close();
  rmSync(home, { recursive: true, force: true });
});

function budgetOf(hostTimeZone = "UTC") {
  const config = ironclawdConfigSchema.parse({
    pricing: { local: { "test-model": { input: 0, output: 10 } } },
    budgets: { timezone: hostTimeZone },
  });
  return new ModelBudget({ db, config, owner: "test/1/1", now: () => now });
}

// Input is free here, so a call's worst case is exactly max_tokens × $10/M: 400 tokens = 4000 µUSD.
const call = (userId = "nora"): ModelCallStart => ({
  userId,
  provider: "local",
  model: "test-model",
  messages: [{ role: "user", content: "hi" }],
  maxTokens: 400,
});

/** One call at the current time, settled at its worst case; whether it was admitted. */
function spend(budget: ModelBudget, userId = "nora"): boolean {
  const admission = budget.admit(call(userId));
  if (!admission.ok) return false;
  budget.settle(admission, call(userId), {
    state: "done",
    usage: { input_tokens: 10, output_tokens: 400 },
    reply: { content: "", toolCalls: [] },
    accepted: true,
    ms: 1,
  });
  return true;
}

describe("budget windows follow the user's time zone", () => {
  it("renews a daily cap at the user's midnight, not UTC's", () => {
    const budget = budgetOf();
    budget.store.setTimeZone("nora", "America/New_York");
    budget.store.setCap({ kind: "user", user: "nora" }, "day", 8000, "test");
    // 23:30 on 30 March in New York is already 31 March in UTC.
    now = Date.parse("2025-03-31T03:30:00Z");
    expect([spend(budget), spend(budget), spend(budget)]).toEqual([true, true, false]);
    // 23:59 in New York, still the same UTC day as the next check: still refused.
    now = Date.parse("2025-03-31T03:59:00Z");
    expect(spend(budget)).toBe(false);
    // 00:05 in New York on 31 March; the UTC date has not changed since 03:30, yet the user's day has.
    now = Date.parse("2025-03-31T04:05:00Z");
    expect(spend(budget)).toBe(true);
    expect(budget.usage.report("day").rows.map((r) => [r.key, r.calls, r.refused])).toEqual([
      ["2025-03-30", 2, 2],
      ["2025-03-31", 1, 0],
    ]);
  });

  it("renews a monthly cap on the first of the user's month, across days", () => {
    const budget = budgetOf();
    budget.store.setTimeZone("nora", "Pacific/Auckland");
    budget.store.setCap({ kind: "user", user: "nora" }, "month", 12_000, "test");
    // 10:00 on 30 April in Auckland (UTC+12) = 22:00 on 29 April UTC.
    now = Date.parse("2025-04-29T22:00:00Z");
    expect([spend(budget), spend(budget)]).toEqual([true, true]);
    now = Date.parse("2025-04-30T05:00:00Z"); // 17:00 on 30 April in Auckland
    expect([spend(budget), spend(budget)]).toEqual([true, false]);
    // 00:30 on 1 May in Auckland, still 30 April in UTC.
    now = Date.parse("2025-04-30T12:30:00Z");
    expect([spend(budget), spend(budget), spend(budget), spend(budget)]).toEqual([true, true, true, false]);
    const months = db
      .prepare<[], { period_key: string; spent_micros: number }>(
        "SELECT period_key, spent_micros FROM budget_spend WHERE party = 'user:nora' AND period_key LIKE 'month:%' ORDER BY 1",
      )
      .all();
    expect(months).toEqual([
      { period_key: "month:2025-04", spent_micros: 12_000 },
      { period_key: "month:2025-05", spent_micros: 12_000 },
    ]);
  });

  it("counts the host-wide cap in the host's time zone while users keep their own", () => {
    const budget = budgetOf("Asia/Tokyo");
    budget.store.setTimeZone("nora", "America/Los_Angeles");
    budget.store.setCap({ kind: "host" }, "day", 8000, "test");
    // 23:00 UTC: 08:00 next day in Tokyo, 16:00 same day in Los Angeles.
    now = Date.parse("2025-06-10T14:00:00Z"); // 23:00 on 10 June in Tokyo
    expect([spend(budget, "nora"), spend(budget, "omar")]).toEqual([true, true]);
    expect(spend(budget, "nora")).toBe(false);
    now = Date.parse("2025-06-10T15:10:00Z"); // 00:10 on 11 June in Tokyo, 08:10 on 10 June in Los Angeles
    expect(spend(budget, "nora")).toBe(true);
    // Nora's record is filed under her own day, the host's cap under Tokyo's.
    expect(budget.usage.report("day", { user: "nora" }).rows.map((r) => r.key)).toEqual(["2025-06-10"]);
    const windows = db
      .prepare<[], { period_key: string }>(
        "SELECT DISTINCT period_key FROM budget_spend WHERE party = 'host' ORDER BY 1",
      )
      .all()
      .map((r) => r.period_key);
    expect(windows).toEqual(["day:2025-06-10", "day:2025-06-11", "month:2025-06"]);
  });
});
