import type { ChildProcess } from "node:child_process";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ironclawdConfigSchema } from "../../src/contracts/index.js";
import { ModelBudget } from "../../src/warden/budget/budget-guard.js";
import { openHostDb, UserStore } from "../../src/warden/index.js";
import { type ModelServer, reply, startModelServer } from "../support/model-server.js";
import { cellsSettingForServe, startServeProcess } from "../support/serve-process.js";
import { api } from "../support/warden-harness.js";

// The daemon dies (kill -9) or is stopped while a model call is in flight: the call's reservation must not hold
// the budget forever, and no spend may be lost or counted twice.
let home = "";
let model: ModelServer;
let token = "";
const daemons: ChildProcess[] = [];

async function serve(): Promise<{ child: ChildProcess; url: string }> {
  const started = await startServeProcess(home);
  daemons.push(started.child);
  return started;
}

/** What host.db says, read by a connection of its own while a daemon may be running. */
// The chat model's calls; the memory index's embeddings are recorded too, priced at nothing here.
function ledger() {
  const db = openHostDb(home);
  try {
    const calls = db
      .prepare<[], { state: string; cost_micros: number; reserved_micros: number }>(
        "SELECT state, cost_micros, reserved_micros FROM usage_calls WHERE user_id = 'uma' AND model = 'test-model' ORDER BY started_at",
      )
      .all();
    const day = db
      .prepare<[], { spent: number; reserved: number }>(
        "SELECT spent_micros AS spent, reserved_micros AS reserved FROM budget_spend WHERE party = 'user:uma' AND period_key LIKE 'day:%'",
      )
      .get();
    return { states: calls.map((c) => c.state), costs: calls.reduce((a, c) => a + c.cost_micros, 0), day };
  } finally {
    db.close();
  }
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 600; i++) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  model = await startModelServer();
  home = await mkdtemp(join(tmpdir(), "ironclaw-budget-restart-"));
  await writeFile(
    join(home, "ironclawd.toml"),
    `[providers.local]\nbase_url = "${model.url}"\napi_key_env = "TEST_MODEL_KEY"\n\n` +
      '[new_brains]\nprovider = "local"\nmodel = "test-model"\nembedding_provider = "local"\nembedding_model = "test-embed"\n\n' +
      '[pricing.local."test-model"]\ninput = 1\noutput = 10\n\n[pricing.local."test-embed"]\ninput = 0\noutput = 0\n\n[budgets]\ndefault_max_tokens = 1000\n' +
      (await cellsSettingForServe()),
  );
  const db = openHostDb(home);
  token = (await new UserStore(db).add("uma")).token;
  const config = ironclawdConfigSchema.parse({});
  new ModelBudget({ db, config }).store.setCap({ kind: "user", user: "uma" }, "day", 1_000_000, "test");
  db.close();
}, 60_000);
afterAll(async () => {
  for (const d of daemons) d.kill("SIGKILL");
  await model?.close();
  await rm(home, { recursive: true, force: true });
});

describe("a daemon that dies mid-call", () => {
  it("settles the dead call on restart, after kill -9 and after a stop, counting every call once", async () => {
    const first = await serve();
    model.respondWith(() => reply.text("Done.", { usage: { prompt_tokens: 2000, completion_tokens: 800 } }));
    const done = (await (await api(first.url, token)("POST", "/api/chat", { text: "one" })).json()) as {
      data: { text: string };
    };
    expect(done.data.text).toBe("Done.");
    expect(ledger()).toMatchObject({ states: ["done"], costs: 10_000, day: { spent: 10_000, reserved: 0 } });

    // The next call hangs at the provider; the daemon is killed while its reservation is held.
    const seen = model.chatRequests().length;
    model.enqueue(reply.stall("Thinking"));
    void api(first.url, token)("POST", "/api/chat", { text: "two" }).catch(() => undefined);
    await until(() => model.chatRequests().length > seen, "the second call to reach the model server");
    const held = ledger();
    expect(held.states).toEqual(["done", "open"]);
    expect(held.day?.reserved).toBeGreaterThan(10_000);
    first.child.kill("SIGKILL");
    await new Promise((resolve) => first.child.once("exit", resolve));
    expect(ledger().day?.reserved).toBe(held.day?.reserved);

    // The next warden releases it, charging the prompt it had sent, and the day's counter matches the records.
    const second = await serve();
    const recovered = ledger();
    expect(recovered.states).toEqual(["done", "interrupted"]);
    expect(recovered.day).toEqual({ spent: recovered.costs, reserved: 0 });
    expect(recovered.costs).toBeGreaterThan(10_000);
    expect(recovered.costs).toBeLessThan(20_000);

    // A stop in the middle of a call: whichever warden settles it, it is settled once.
    const before = model.chatRequests().length;
    model.enqueue(reply.stall("Pondering"));
    void api(second.url, token)("POST", "/api/chat", { text: "three" }).catch(() => undefined);
    await until(() => model.chatRequests().length > before, "the third call to reach the model server");
    second.child.kill("SIGTERM");
    await new Promise((resolve) => second.child.once("exit", resolve));
    const third = await serve();
    const after = ledger();
    expect(after.states).toHaveLength(3);
    expect(after.states.slice(0, 2)).toEqual(["done", "interrupted"]);
    expect(["aborted", "interrupted"]).toContain(after.states[2]);
    expect(after.day).toEqual({ spent: after.costs, reserved: 0 });

    const again = (await (await api(third.url, token)("POST", "/api/chat", { text: "four" })).json()) as {
      data: { text: string };
    };
    expect(again.data.text).toBe("Done.");
    expect(ledger().day).toEqual({ spent: after.costs + 10_000, reserved: 0 });
    third.child.kill("SIGTERM");
    await new Promise((resolve) => third.child.once("exit", resolve));
  }, 240_000);
});
