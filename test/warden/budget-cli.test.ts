import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ironclawdConfigSchema } from "../../src/contracts/index.js";
import { ModelBudget, type ModelCallStart } from "../../src/warden/budget/budget-guard.js";
import { openHostDb } from "../../src/warden/host-db.js";
import { UserStore } from "../../src/warden/user-store.js";
import { runIronclaw, runIronclawInProcess } from "../cli/run-cli.js";

// `ironclaw budget` and `ironclaw usage` as an operator runs them, against the host.db a warden uses.
let root = "";
let home = "";
beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), "ironclaw-budget-cli-"));
  home = join(root, "home");
  const db = openHostDb(home);
  const users = new UserStore(db);
  await users.add("alice");
  await users.add("bob");
  // Two recorded calls of alice's: a chat turn and a cron job's, as the model proxy would have settled them.
  const config = ironclawdConfigSchema.parse({
    pricing: { local: { "test-model": { input: 1, output: 10 } } },
  });
  const budget = new ModelBudget({ db, config, now: () => Date.parse("2025-05-04T12:00:00Z") });
  for (const labels of [
    { agent: "assistant", session: "01JSESSION" },
    { agent: "assistant", job: "nightly" },
  ]) {
    const call: ModelCallStart = {
      userId: "alice",
      ...labels,
      provider: "local",
      model: "test-model",
      messages: [{ role: "user", content: "hi" }],
      // Room for the 500 tokens out reported below: a call is charged at most what it reserved.
      maxTokens: 1000,
    };
    const admission = budget.admit(call);
    if (admission.ok)
      budget.settle(admission, call, {
        state: "done",
        usage: { input_tokens: 1000, output_tokens: 500 },
        reply: { content: "", toolCalls: [] },
        accepted: true,
        ms: 40,
      });
  }
  db.close();
  writeFileSync(join(home, "ironclawd.toml"), '[pricing.local."test-model"]\ninput = 1\noutput = 10\n');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

// In this process (the same runCli the binary runs; a child per call would time Node's start-up), with one
// real child process below to show the binary reads the same home.
const ironclaw = (...args: string[]) => {
  process.env.IRONCLAW_HOME = home;
  return runIronclawInProcess(args);
};

describe("ironclaw budget", () => {
  it("sets a user's caps and time zone, shows them against today's spend, and clears them", async () => {
    const set = await ironclaw(
      "budget",
      "set",
      "--user",
      "alice",
      "--daily-usd",
      "0.5",
      "--monthly-usd",
      "10",
      "--timezone",
      "Europe/Berlin",
    );
    expect(set).toMatchObject({ code: 0, stderr: "" });
    expect(set.stdout).toBe("user alice: daily $0.50, monthly $10.00; days and months in Europe/Berlin\n");
    const job = await ironclaw(
      "budget",
      "set",
      "--user",
      "alice",
      "--job",
      "nightly",
      "--daily-usd",
      "0.05",
      "--json",
    );
    expect(JSON.parse(job.stdout)).toMatchObject({
      party: "job:alice/nightly",
      daily_usd: 0.05,
      monthly_usd: null,
    });

    const shown = await ironclaw("budget", "show", "--user", "alice", "--json");
    const overview = JSON.parse(shown.stdout) as {
      time_zone: string;
      status: Array<Record<string, unknown>>;
    };
    expect(overview.time_zone).toBe("Europe/Berlin");
    expect(overview.status.map((s) => [s.party, s.period, s.limit_usd, s.time_zone])).toEqual([
      ["job:alice/nightly", "day", 0.05, "Europe/Berlin"],
      ["user:alice", "day", 0.5, "Europe/Berlin"],
      ["user:alice", "month", 10, "Europe/Berlin"],
    ]);
    const text = await ironclaw("budget", "show");
    expect(text.stdout).toMatch(
      /^user alice\s+day\s+day:\d{4}-\d{2}-\d{2}\s+\$0\.0000 of \$0\.50 \(0%\)\s+Europe\/Berlin$/m,
    );

    const none = await ironclaw("budget", "set", "--user", "alice", "--monthly-usd", "none", "--json");
    expect(JSON.parse(none.stdout)).toMatchObject({ daily_usd: 0.5, monthly_usd: null });
    const cleared = await ironclaw("budget", "clear", "--user", "alice");
    expect(cleared.stdout).toBe("removed 1 cap\n");
    const audit = openHostDb(home);
    const actions = audit
      .prepare<[], { action: string }>(
        "SELECT action FROM warden_audit WHERE action LIKE 'budget.%' ORDER BY id",
      )
      .all()
      .map((r) => r.action);
    audit.close();
    expect(actions).toEqual(["budget.set", "budget.set", "budget.set", "budget.cleared"]);
  });

  it("sets the host-wide cap and lists the prices in force", async () => {
    const host = await ironclaw("budget", "set", "--host", "--daily-usd", "20", "--json");
    expect(JSON.parse(host.stdout)).toMatchObject({ party: "host", description: "this host", daily_usd: 20 });
    const prices = await ironclaw("budget", "prices", "--json");
    const list = JSON.parse(prices.stdout) as Array<{ provider: string; model: string; source: string }>;
    expect(list[0]).toMatchObject({ provider: "local", model: "test-model", source: "config" });
    expect(list.some((p) => p.provider === "openrouter" && p.source.startsWith("default 20"))).toBe(true);
  });

  it("refuses bad input with one line naming the flag and the rule, and changes nothing", async () => {
    const before = (await ironclaw("budget", "show", "--json")).stdout;
    const cases: Array<[string[], string]> = [
      [
        ["--user", "alice", "--daily-usd=-3"],
        "ironclaw budget: --daily-usd: must be at least 0 (US dollars)\n",
      ],
      [
        ["--user", "alice", "--daily-usd", "lots"],
        "ironclaw budget: --daily-usd: must be a number of US dollars, or none\n",
      ],
      [["--daily-usd", "1"], "ironclaw budget: --user: is required (or host: true for the host-wide cap)\n"],
      [["--user", "alice"], "ironclaw budget: --daily-usd: give daily_usd, monthly_usd or timezone\n"],
      [
        ["--user", "alice", "--timezone", "Mars/Base"],
        expect.stringMatching(/^ironclaw budget: --timezone: must be an IANA time zone/),
      ],
      [["--user", "nobody", "--daily-usd", "1"], "ironclaw budget: user nobody not found\n"],
      [
        ["--user", "alice", "--agent", "a", "--job", "j", "--daily-usd", "1"],
        "ironclaw budget: --job: give agent or job, not both\n",
      ],
    ] as Array<[string[], string]>;
    for (const [args, message] of cases) {
      const result = await ironclaw("budget", "set", ...args);
      expect(result.code).toBe(1);
      expect(result.stderr).toEqual(message);
    }
    expect((await ironclaw("budget", "show", "--json")).stdout).toBe(before);
    const unknown = await ironclaw("budget", "raise");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/unknown subcommand 'raise'/);
  });
});

describe("ironclaw usage", () => {
  it("reports spend by day, agent, session and job, as text and JSON", async () => {
    const byJob = JSON.parse(
      (await ironclaw("usage", "--user", "alice", "--by", "job", "--json")).stdout,
    ) as {
      rows: Array<Record<string, unknown>>;
      total: Record<string, unknown>;
    };
    expect(byJob.rows).toEqual([
      expect.objectContaining({ key: "(none)", calls: 1, cost_usd: 0.006 }),
      expect.objectContaining({ key: "nightly", calls: 1, cost_usd: 0.006 }),
    ]);
    expect(byJob.total).toMatchObject({ calls: 2, input_tokens: 2000, output_tokens: 1000, cost_usd: 0.012 });
    const byDay = await ironclaw("usage", "--since", "2025-05-01", "--until", "2025-05-31");
    expect(byDay.stdout).toMatch(/^2025-05-04\s+2\s+0\s+2000\s+1000\s+0\.0120$/m);
    expect(byDay.stdout).toMatch(/^total\s+2\s+0\s+2000\s+1000\s+0\.0120$/m);
    const later = await runIronclaw(["usage", "--since", "2025-06-01"], { env: { IRONCLAW_HOME: home } });
    expect(later.stdout).toBe("no model calls recorded\n");
    const bad = await ironclaw("usage", "--since", "yesterday");
    expect(bad).toMatchObject({
      code: 1,
      stderr: "ironclaw usage: --since: must be a date like 2025-03-31\n",
    });
    const group = await ironclaw("usage", "--by", "planet");
    expect(group.stderr).toMatch(
      /^ironclaw usage: --by: must be one of day, model, agent, session, job, user\n$/,
    );
  }, 60_000);
});
