import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CoHarness, eventTypes, integrateOrder, openCo } from "../../../test/support/co-harness.js";
import { ConflictError, ValidationError } from "../../core/index.js";
import { SqliteEventStore } from "../../ledger/index.js";
import { CommandingOfficer } from "./commanding-officer.js";

/** What a planning model answers: three orders, C waiting on A and B. */
const THREE_ORDERS = [
  "The plan:",
  "```json",
  JSON.stringify({
    orders: [
      {
        key: "A",
        type: "research",
        objective: "Collect the facts",
        acceptance_commands: ["test -f outputs/a.md"],
      },
      { key: "B", type: "draft", objective: "Draft the outline", constraints: { budget_seconds: 120 } },
      { key: "C", type: "draft", objective: "Write the summary", depends_on: ["A", "B"] },
    ],
  }),
  "```",
].join("\n");

let h: CoHarness;
beforeEach(async () => {
  h = await openCo();
});
afterEach(async () => {
  await h.close();
});

async function plannedRun() {
  const runId = await h.co.createRun({ userId: "u_1", theaterId: "demo", objective: "Summarize the repo" });
  h.planner.reply = THREE_ORDERS; // model text: the CO reads the plan out of it
  const plan = await h.co.plan(runId);
  const [a = "", b = "", c = ""] = plan.order_ids;
  return { runId, plan, a, b, c };
}

function fieldsOf(error: unknown): string[] {
  if (!(error instanceof ValidationError)) throw error;
  return error.issues.map((i) => `${i.path}: ${i.message}`);
}

describe("CommandingOfficer", () => {
  it("records a run with its user and objective", async () => {
    const runId = await h.co.createRun({ userId: "u_1", theaterId: "demo", objective: "Summarize the repo" });
    const [created] = await h.store.read({ runId });
    expect(created).toMatchObject({
      type: "RUN_CREATED",
      theater_id: "demo",
      payload: { objective: "Summarize the repo", user_id: "u_1" },
    });
    expect((await h.co.runStatus(runId)).status).toBe("OPEN");
  });

  it("refuses an empty objective and a missing theater by name, appending nothing", async () => {
    const error = await h.co.createRun({ userId: "u_1", theaterId: "demo", objective: "" }).catch((e) => e);
    expect(fieldsOf(error)).toEqual(["$.objective: must be a non-empty string"]);
    const blank = await h.co.createRun({ userId: "u_1", objective: "  " } as never).catch((e: unknown) => e);
    expect(fieldsOf(blank)).toEqual(["$.theaterId: is required", "$.objective: must not be blank"]);
    expect(await h.store.head()).toBe(0);
  });

  it("plans orders with their dependencies, acceptance commands and filled-in defaults", async () => {
    const { runId, plan, a, b, c } = await plannedRun();
    expect(h.planner.requests).toEqual([
      { runId, objective: "Summarize the repo", theaterId: "demo", userId: "u_1" },
    ]);
    expect(plan.dependencies).toEqual([{ order_id: c, depends_on: [a, b] }]);
    const created = await h.store.read({ runId, types: ["ORDER_CREATED"] });
    expect(created.map((e) => e.order_id)).toEqual([a, b, c]);
    expect(created[0]?.payload).toMatchObject({
      key: "A",
      acceptance_commands: ["test -f outputs/a.md"],
      depends_on: [],
      profile: { name: "executor_default" },
      constraints: { budget_seconds: 600, max_retries: 1, tool_policy: { network: false } },
    });
    expect(created[1]?.payload).toMatchObject({ constraints: { budget_seconds: 120, max_retries: 1 } });
    expect(created[2]?.payload).toMatchObject({ key: "C", depends_on: [a, b] });
    await expect(h.co.plan(runId)).rejects.toThrow(ConflictError);
    expect(await eventTypes(h.store, runId)).toEqual([
      "RUN_CREATED",
      "ORDER_CREATED",
      "ORDER_CREATED",
      "ORDER_CREATED",
    ]);
  });

  it("refuses a cyclic plan and an unknown dependency by field, appending nothing", async () => {
    const runId = await h.co.createRun({ userId: "u_1", theaterId: "demo", objective: "Loop" });
    const head = await h.store.head();
    h.planner.reply = {
      orders: [
        { key: "a", type: "t", objective: "x", depends_on: ["b"] },
        { key: "b", type: "t", objective: "y", depends_on: ["a"] },
      ],
    };
    expect(fieldsOf(await h.co.plan(runId).catch((e) => e))).toEqual([
      "$.orders[0].depends_on: must not form a cycle: a → b → a",
    ]);
    h.planner.reply = { orders: [{ key: "a", type: "t", objective: "x", depends_on: ["ghost"] }] };
    expect(fieldsOf(await h.co.plan(runId).catch((e) => e))).toEqual([
      "$.orders[0].depends_on[0]: must be the key of another order in this plan: ghost",
    ]);
    expect(await h.store.head()).toBe(head);
  });

  it("dispatches A and B, then C once both are integrated, never twice", async () => {
    const { runId, a, b, c } = await plannedRun();
    expect(await h.co.dispatch(runId)).toEqual({ run_id: runId, enqueued: [a, b], waiting: [c] });
    const jobA = await h.queue.claim("worker-1", 60_000);
    expect(jobA?.job).toMatchObject({
      job_type: "EXECUTE_ORDER",
      order_id: a,
      attempt: 1,
      worktree_path: h.worktree("demo", a),
      tool_policy: { network: false },
      acceptance_commands: ["test -f outputs/a.md"],
    });
    expect((await h.queue.claim("worker-2", 60_000))?.job.order_id).toBe(b);

    expect(await h.co.dispatch(runId)).toEqual({ run_id: runId, enqueued: [], waiting: [c] });
    expect(await h.queue.counts()).toEqual({ waiting: 0, held: 2, done: 0 });
    expect((await h.store.read({ runId, types: ["ORDER_ENQUEUED"] })).map((e) => e.order_id)).toEqual([a, b]);

    await integrateOrder(h, a, "Facts collected");
    expect(await h.co.dispatch(runId)).toEqual({ run_id: runId, enqueued: [], waiting: [c] });
    await integrateOrder(h, b, "Outline drafted");
    expect(await h.co.dispatch(runId)).toEqual({ run_id: runId, enqueued: [c], waiting: [] });
    expect(await h.co.dispatch(runId)).toEqual({ run_id: runId, enqueued: [], waiting: [] });
    const enqueued = await h.store.read({ runId, types: ["ORDER_ENQUEUED"] });
    expect(enqueued.map((e) => [e.order_id, e.payload.attempt])).toEqual([
      [a, 1],
      [b, 1],
      [c, 1],
    ]);
    expect(await h.queue.counts()).toEqual({ waiting: 1, held: 2, done: 0 });
    expect((await h.queue.claim("worker-3", 60_000))?.job.order_id).toBe(c);
  });

  it("enqueues a reissued order again at its new attempt", async () => {
    const { runId, b } = await plannedRun();
    await h.co.dispatch(runId);
    const ids = { garrison_id: "local", theater_id: "demo", run_id: runId, order_id: b };
    await h.store.appendBatch([
      { ...ids, type: "ORDER_STARTED", payload: { attempt: 1 } },
      { ...ids, type: "ORDER_FAILED", payload: { reason: "timed out" } },
      { ...ids, type: "ORDER_REISSUED", payload: { attempt: 2 } },
    ]);
    expect((await h.co.dispatch(runId)).enqueued).toEqual([b]);
    expect((await h.co.dispatch(runId)).enqueued).toEqual([]);
    const enqueued = await h.store.read({ orderId: b, types: ["ORDER_ENQUEUED"] });
    expect(enqueued.map((e) => e.payload.attempt)).toEqual([1, 2]);
    expect(await h.queue.counts()).toEqual({ waiting: 3, held: 0, done: 0 });
  });

  it("two COs dispatching the same run at once enqueue each order once", async () => {
    const { runId, a, b } = await plannedRun();
    const second = await SqliteEventStore.open({ path: join(h.dir, "ledger.db") });
    try {
      const other = new CommandingOfficer({
        store: second,
        queue: h.queue,
        planner: h.planner,
        theaterWorktreePath: h.worktree,
      });
      const results = await Promise.all([h.co.dispatch(runId), other.dispatch(runId)]);
      expect(results.flatMap((r) => r.enqueued).sort()).toEqual([a, b].sort());
      const enqueued = await h.store.read({ runId, types: ["ORDER_ENQUEUED"] });
      expect(enqueued.map((e) => e.order_id).sort()).toEqual([a, b].sort());
      expect(await h.queue.counts()).toEqual({ waiting: 2, held: 0, done: 0 });
    } finally {
      await second.close();
    }
  });

  it("answers GET /runs and GET /orders with plan keys, AAR and artifact pointers", async () => {
    const { runId, a, c } = await plannedRun();
    await h.co.dispatch(runId);
    await integrateOrder(h, a, "Facts collected");
    const run = await h.co.runStatus(runId);
    expect(run.orders.map((o) => [o.key, o.status, o.integration_state])).toEqual([
      ["A", "COMPLETED", "INTEGRATED"],
      ["B", "QUEUED", null],
      ["C", "QUEUED", null],
    ]);
    expect(run.artifacts).toEqual([{ order_id: a, path: "outputs/result.md", type: "text/markdown" }]);
    expect(run.orders.map((o) => o.aar_summary)).toEqual(["Facts collected", null, null]);
    const order = await h.co.orderStatus(a);
    expect(order).toMatchObject({ aar_path: "aar.json", commit_sha: expect.any(String), plan: { key: "A" } });
    expect((await h.co.orderStatus(c)).plan?.depends_on).toHaveLength(2);
  });
});
