import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ironclawdConfigSchema } from "../../../src/contracts/index.js";
import { ModelBudget, type ModelCallStart } from "../../../src/warden/budget/budget-guard.js";
import { api } from "../../support/warden-harness.js";
import { reportFailures, shoot, signIn, startUiSession, type UiSession } from "./ui-session.js";

// The usage page as alice sees it: spend per day against her daily cap, the cap's meter, spend by model and
// the alerts. Her calls are settled through the warden's own host.db the way the model proxy settles them,
// on two days (an injected clock for the earlier one), at $0.01 a call against a daily cap of $0.03.
const DAY = 86_400_000;
const CAP = 0.03;
let s: UiSession;
let refusedToday = 0;

function settleCalls(budget: ModelBudget, count: number): number {
  let refused = 0;
  for (let i = 0; i < count; i++) {
    const call: ModelCallStart = {
      userId: "alice",
      agent: "assistant",
      provider: "local",
      model: "test-model",
      messages: [{ role: "user", content: "What is on today?" }],
      // Reserves exactly what the call is charged: 10 prompt tokens (the estimate) + 999 out = $0.01, so a call is
      // never charged past its reservation and three fill the cap.
      maxTokens: 999,
    };
    const admission = budget.admit(call);
    if (!admission.ok) {
      refused += 1;
      continue;
    }
    budget.settle(admission, call, {
      state: "done",
      usage: { input_tokens: 2000, output_tokens: 800 },
      reply: { content: "Fine.", toolCalls: [] },
      accepted: true,
      ms: 30,
    });
  }
  return refused;
}

beforeAll(async () => {
  s = await startUiSession();
  const admin = api(s.h.url, (await s.h.warden.context.users.add("boss", { admin: true })).token);
  expect((await admin("PUT", "/api/budgets", { user: "alice", daily_usd: CAP })).status).toBe(200);
  const config = ironclawdConfigSchema.parse({
    pricing: { local: { "test-model": { input: 1, output: 10 } } },
  });
  const db = s.h.warden.context.budget.store.db;
  // Noon two days ago (in the host's zone, which is alice's too), then now.
  settleCalls(new ModelBudget({ db, config, now: () => Date.now() - 2 * DAY, owner: "earlier" }), 2);
  refusedToday = settleCalls(new ModelBudget({ db, config, owner: "today" }), 4);
}, 180_000);
afterAll(async () => {
  await s?.close();
});

describe("the usage page", () => {
  reportFailures(() => s);
  it("draws spend per day against the daily cap, the cap's meter, spend by model and the alerts", async () => {
    expect(refusedToday).toBe(1);
    await signIn(s.page, s.h.url, s.token);
    await s.page.getByRole("link", { name: "Usage" }).click();
    const chart = s.page.locator(".spend-chart");
    await chart.waitFor();
    expect(await chart.locator("rect.bar").count()).toBe(30);
    expect(await chart.locator(".cap-line").getAttribute("data-cap")).toBe(String(CAP));
    // Today's bar reached the cap and is drawn as such; the day two days back is under it.
    const bars = chart.locator("rect.bar");
    expect(await bars.nth(29).getAttribute("data-over")).toBe("true");
    expect(await bars.nth(27).getAttribute("data-over")).toBeNull();
    expect(Number(await bars.nth(27).getAttribute("height"))).toBeGreaterThan(0);
    expect(Number(await bars.nth(28).getAttribute("height"))).toBe(0);
    expect(await chart.getByRole("img").getAttribute("aria-label")).toContain(
      "$0.05 over the last 30 days; most on",
    );
    await expect
      .poll(() => chart.locator("figcaption").textContent())
      .toContain("daily cap $0.03, reached on 1 day");
    const cap = s.page.locator('li.cap[data-party="user:alice"][data-period="day"]');
    expect(await cap.getAttribute("data-level")).toBe("over");
    expect(await cap.locator(".cap-figures").textContent()).toBe("$0.03 of $0.03 today");
    const row = s.page.getByRole("row", { name: /local test-model/ });
    expect(await row.locator("td").allTextContents()).toEqual(["5", "1", "10000 (0)", "4000", "$0.05"]);
    const alerts = await s.page.locator(".budget-alerts li").allTextContents();
    expect(alerts.some((a) => /daily budget of \$0\.03 for user alice/.test(a))).toBe(true);
    await shoot(s.page, "usage");
  });

  it("says so when a user has neither caps nor calls", async () => {
    const bob = await s.h.addUser("bob");
    await s.page.getByRole("button", { name: "Sign out", exact: true }).click();
    // Straight to the usage screen: the chat would start bob's cell, whose first index embeds the starter brain
    // through the warden's proxy, a model call of his own that could reach the page before its answer.
    await signIn(s.page, s.h.url, bob, "usage");
    await s.page.getByText("No caps: model calls are not limited.").waitFor();
    // The caps, the spend chart and the calls table come from requests of their own: each is waited for, since
    // the caps' answer can be drawn before the calls' (a count taken at once found no table cell yet).
    const empty = s.page.getByRole("cell", { name: "No model calls in these days." });
    await empty.waitFor();
    expect(await empty.count()).toBe(1);
    await expect
      .poll(() => s.page.locator(".spend-chart figcaption").textContent())
      .toBe("$0.00 over the last 30 days.");
    expect(await s.page.locator(".spend-chart .cap-line").count()).toBe(0);
  });
});
