import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ironclawdConfigSchema } from "../../src/contracts/index.js";
import { ModelBudget, type ModelCallStart } from "../../src/warden/budget/budget-guard.js";
import { openHostDb } from "../../src/warden/host-db.js";
import { summarise, timeRounds } from "../agent/timing.js";

/**
 * What the model proxy's bookkeeping costs per call, on a real host.db (WAL, as the warden opens it): the
 * reservation transaction before dispatch plus the settlement after, for a call under four caps (host, user, agent,
 * job) against the same call with no cap (recorded only).
 */
export async function measureBudgetCost(rounds: number) {
  const home = mkdtempSync(join(tmpdir(), "ironclaw-bench-budget-"));
  const db = openHostDb(home);
  try {
    const config = ironclawdConfigSchema.parse({
      pricing: { local: { "test-model": { input: 1, output: 10 } } },
    });
    const budget = new ModelBudget({ db, config });
    const call = (userId: string): ModelCallStart => ({
      userId,
      agent: "assistant",
      job: "nightly",
      provider: "local",
      model: "test-model",
      messages: [
        { role: "system", content: "You are a benchmark. ".repeat(200) },
        { role: "user", content: "When is the launch?" },
      ],
      maxTokens: 1000,
    });
    const big = 1_000_000_000_000;
    budget.store.setCap({ kind: "host" }, "day", big, "bench");
    budget.store.setCap({ kind: "user", user: "capped" }, "day", big, "bench");
    budget.store.setCap({ kind: "agent", user: "capped", name: "assistant" }, "month", big, "bench");
    budget.store.setCap({ kind: "job", user: "capped", name: "nightly" }, "day", big, "bench");
    const roundTrip = (userId: string) => async () => {
      const c = call(userId);
      const admission = budget.admit(c);
      if (!admission.ok) throw new Error(admission.refusal.message);
      budget.settle(admission, c, {
        state: "done",
        usage: { input_tokens: 1200, output_tokens: 40 },
        reply: { content: "", toolCalls: [] },
        accepted: true,
        ms: 1,
      });
    };
    // The host cap applies to everyone: the uncapped user is measured on a host.db of its own caps' making.
    const free = new ModelBudget({ db: openHostDb(join(home, "free")), config });
    const uncapped = async () => {
      const c = call("free");
      const admission = free.admit(c);
      if (admission.ok)
        free.settle(admission, c, {
          state: "done",
          usage: { input_tokens: 1200, output_tokens: 40 },
          reply: { content: "", toolCalls: [] },
          accepted: true,
          ms: 1,
        });
    };
    const [withCaps = [], withoutCaps = []] = await timeRounds(rounds, [roundTrip("capped"), uncapped]);
    free.store.db.close();
    return { capped: summarise(withCaps), uncapped: summarise(withoutCaps) };
  } finally {
    db.close();
    rmSync(home, { recursive: true, force: true });
  }
}
