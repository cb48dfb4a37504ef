import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type Database from "better-sqlite3";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ironclawdConfigSchema } from "../../contracts/index.js";
import { AuditStore } from "../audit-store.js";
import { openHostDb } from "../host-db.js";
import { UserStore } from "../user-store.js";
import { relayBudgetAlerts } from "./budget-alerts.js";
import { ModelBudget, type ModelCallStart } from "./budget-guard.js";
import { estimatePromptTokens } from "./usage-estimate.js";

// Budget alerts on a real host.db: which thresholds a charge crosses, once per window, who hears of them (the
// user, or every admin for the host-wide cap) and the audit line each leaves. Prices: 1 token in = 1 µUSD, out = 10.

let home = "";
let db: Database.Database;
let budget: ModelBudget;
let audit: AuditStore;
let sent: Array<[string, string]>;
const NOW = Date.parse("2026-11-27T12:00:00Z");

beforeEach(() => {
  home = mkdtempSync(join(tmpdir(), "ironclaw-budget-alerts-"));
  db = openHostDb(home);
  const config = ironclawdConfigSchema.parse({
    pricing: { local: { "test-model": { input: 1, output: 10 } } },
  });
  budget = new ModelBudget({ db, config, owner: "alerts/1/1", now: () => NOW });
  audit = new AuditStore(db);
  // Users as the warden keeps them: ada, and two admins.
  const add = db.prepare("INSERT INTO warden_users (id, is_admin, created_at, cell_uid) VALUES (?, ?, ?, ?)");
  for (const [i, [id, admin]] of (
    [
      ["ada", 0],
      ["root", 1],
      ["ops", 1],
    ] as const
  ).entries())
    add.run(id, admin, new Date(NOW).toISOString(), 70_000 + i);
  sent = [];
  relayBudgetAlerts(budget, {
    router: { notify: (userId, text) => void sent.push([userId, text]) },
    users: new UserStore(db),
    audit,
  });
});
afterEach(() => {
  db.close();
  rmSync(home, { recursive: true, force: true });
});

const call = (maxTokens = 1000): ModelCallStart => ({
  userId: "ada",
  provider: "local",
  model: "test-model",
  messages: [{ role: "user", content: "hi" }],
  maxTokens,
});
/** What a call reserves: its prompt's estimate in, and max_tokens out (10 µUSD each). */
const PROMPT = estimatePromptTokens(call().messages, []);

/** One call, charged `output` tokens out and `input` in if admitted; false when refused. */
function spend(output: number, options: { input?: number; maxTokens?: number } = {}): boolean {
  const c = call(options.maxTokens);
  const admission = budget.admit(c);
  if (!admission.ok) return false;
  budget.settle(admission, c, {
    state: "done",
    usage: { input_tokens: options.input ?? 0, output_tokens: output },
    reply: { content: "", toolCalls: [] },
    accepted: true,
    ms: 5,
  });
  return true;
}

const levels = () =>
  audit
    .list({ action: "budget.alert" })
    .map((row) => row.detail.level)
    .reverse();

describe("budget alerts", () => {
  it("tells the user of each threshold a charge crosses, once a day, with the numbers, and audits each", () => {
    // $0.02 a day; a call reserves about $0.01.
    budget.store.setCap({ kind: "user", user: "ada" }, "day", 20_000, "test");
    expect(spend(900)).toBe(true); // 45 %
    expect(sent).toEqual([]);
    expect(spend(800)).toBe(true); // 85 %: past 50 and 80 at once
    expect(sent).toEqual([
      ["ada", "Budget: 50% of the daily budget of $0.02 for user ada is used ($0.017 spent, 2026-11-27)."],
      ["ada", "Budget: 80% of the daily budget of $0.02 for user ada is used ($0.017 spent, 2026-11-27)."],
    ]);
    expect(spend(100, { maxTokens: 100 })).toBe(true); // 90 %: nothing new
    expect(sent).toHaveLength(2);
    expect(levels()).toEqual(["50", "80"]);
    expect(audit.list({ action: "budget.alert" })[0]).toMatchObject({
      userId: "ada",
      actor: "warden",
      detail: { party: "user:ada", window: "day:2026-11-27", level: "80", spent_micros: 17_000 },
    });
  });

  it("reports the first refusal of a window once, however many calls it refuses", () => {
    budget.store.setCap({ kind: "user", user: "ada" }, "day", 20_000, "test");
    expect(spend(900)).toBe(true);
    expect(spend(800)).toBe(true);
    expect(spend(100)).toBe(false);
    expect(spend(100)).toBe(false);
    expect(levels()).toEqual(["50", "80", "refused"]);
    expect(sent.at(-1)).toEqual([
      "ada",
      "Budget: a model call was refused, the daily budget of $0.02 for user ada would be exceeded ($0.017 spent, 2026-11-27). It renews at midnight (UTC).",
    ]);
    expect(sent).toHaveLength(3);
  });

  it("tells every admin, and not the user whose call crossed it, of the host-wide cap", () => {
    // Exactly one call's worst case: admitted, and charged all of it.
    const worst = PROMPT + 10_000;
    budget.store.setCap({ kind: "host" }, "month", worst, "test");
    expect(spend(1_000, { input: PROMPT })).toBe(true);
    expect(sent.map(([to]) => to)).toEqual(["ops", "root", "ops", "root", "ops", "root"]);
    expect(levels()).toEqual(["50", "80", "100"]);
    const limit = `$0.${String(worst).padStart(6, "0")}`;
    expect(sent.at(-1)?.[1]).toBe(
      `Budget: the monthly budget of ${limit} for this host is used up (${limit} spent, 2026-11); model calls ` +
        "are refused until it renews on the first of next month (UTC).",
    );
    // Host-wide entries name no user: a user's own view of the audit does not show them.
    expect(audit.list({ action: "budget.alert" }).every((row) => row.userId === null)).toBe(true);
  });

  it("keeps the call and the alert when telling someone fails", () => {
    budget.store.setCap({ kind: "user", user: "ada" }, "day", 20_000, "test");
    const failing = new ModelBudget({
      db,
      config: ironclawdConfigSchema.parse({ pricing: { local: { "test-model": { input: 1, output: 10 } } } }),
      owner: "alerts/1/2",
      now: () => NOW,
    });
    failing.onAlert(() => {
      throw new Error("the chat is unreachable");
    });
    const admission = failing.admit(call());
    if (!admission.ok) throw new Error("refused");
    expect(() =>
      failing.settle(admission, call(), {
        state: "done",
        usage: { input_tokens: 0, output_tokens: 1_000 },
        reply: { content: "", toolCalls: [] },
        accepted: true,
        ms: 5,
      }),
    ).not.toThrow();
    expect(failing.store.alerts({ user: "ada" }).map((a) => a.level)).toEqual(["50"]);
  });
});
