import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { reply } from "../support/model-server.js";
import { api, startWardenHarness, type WardenHarness } from "../support/warden-harness.js";

// A sync chat from objective to reply through everything the warden hosts: the host's planning model (the
// scripted server, over HTTP), the warden's own worker running the order's agent in a real cell, integration
// into the theater's main, and the CO's reply.

let h: WardenHarness;
let alice: ReturnType<typeof api>;

/** What the scripted model answers: a plan to the planner, a seed-001 completion to the order's agent. */
function script(body: Record<string, unknown>) {
  const text = JSON.stringify(body.messages ?? []);
  if (text.includes("commanding officer"))
    return reply.text('{"orders": [{"key": "a1", "type": "research", "objective": "Read the repository"}]}');
  // Seed 001's dispatch names the order in its branch, jarvis-order_<order id>.
  const orderId = /jarvis-order_([0-9A-Za-z]+)/.exec(text)?.[1] ?? "unknown";
  const fields = {
    run_id: orderId,
    branch: `jarvis-order_${orderId}`,
    commit_sha: "abc1234",
    files_changed: [],
    test_result: "nothing to run",
    risk: "low - read only",
    pr_skipped_reason: "the host integrates the worktree",
  };
  return reply.text(`The repository is empty.\n<completion>\n${JSON.stringify(fields)}\n</completion>`);
}

beforeAll(async () => {
  h = await startWardenHarness({ configure: (c) => ({ ...c, cells: { ...c.cells, pool_size: 0 } }) });
  h.model.respondWith(script);
  alice = api(h.url, await h.addUser("alice"));
  expect((await alice("POST", "/api/theaters", { theater_id: "demo" })).status).toBe(201);
}, 120_000);
afterAll(async () => {
  await h?.close();
});

describe("POST /api/command/chat, sync", () => {
  it("answers the run's reply once its order ran in a cell and was integrated", async () => {
    const asked = await alice("POST", "/api/command/chat", { theater_hint: "demo", message: "Summarize it" });
    const answer = (await asked.json()) as {
      ok: boolean;
      data: { run_id: string; reply: string };
      error: unknown;
    };
    expect(answer.error).toBeNull();
    expect(asked.status).toBe(200);
    expect(answer.data.reply).toContain("Summarize it");
    const run = (await (await alice("GET", `/api/runs/${answer.data.run_id}`)).json()) as {
      data: { status: string; orders: Array<{ integration_state: string }> };
    };
    expect(run.data.status).toBe("COMPLETE");
    expect(run.data.orders.map((o) => o.integration_state)).toEqual(["INTEGRATED"]);
    const orderId = (run.data.orders[0] as { order_id?: string } | undefined)?.order_id ?? "";
    const order = (await (await alice("GET", `/api/orders/${orderId}`)).json()) as {
      data: { commit_sha: string };
    };
    expect(order.data.commit_sha).toMatch(/^[0-9a-f]{40}$/);
  }, 120_000);
});
