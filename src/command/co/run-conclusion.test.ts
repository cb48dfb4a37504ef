import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type CoHarness, eventTypes, integrateOrder, openCo } from "../../../test/support/co-harness.js";
import { ConflictError } from "../../core/index.js";
import type { SynthesisRequest } from "./co-services.js";

const PLAN = {
  orders: [
    { key: "A", type: "research", objective: "Collect the facts", constraints: { max_retries: 0 } },
    { key: "B", type: "draft", objective: "Draft the outline" },
    { key: "C", type: "draft", objective: "Write the summary", depends_on: ["A", "B"] },
  ],
};

let h: CoHarness;
afterEach(async () => {
  await h.close();
});

async function dispatchedRun(options: Parameters<typeof openCo>[0] = {}) {
  h = await openCo(options);
  const runId = await h.co.createRun({ userId: "u_1", theaterId: "demo", objective: "Summarize the repo" });
  h.planner.reply = PLAN;
  const [a = "", b = "", c = ""] = (await h.co.plan(runId)).order_ids;
  await h.co.dispatch(runId);
  return { runId, a, b, c };
}

/** The events a worker appends when its only attempt fails. */
async function failOrder(orderId: string, runId: string, reason: string) {
  const ids = { garrison_id: "local", theater_id: "demo", run_id: runId, order_id: orderId };
  await h.store.appendBatch([
    { ...ids, type: "ORDER_STARTED", payload: { attempt: 1 } },
    { ...ids, type: "ORDER_FAILED", payload: { reason } },
  ]);
}

describe("synthesis", () => {
  it("composes the reply from the AARs once every order is integrated", async () => {
    const { runId, a, b, c } = await dispatchedRun();
    await integrateOrder(h, a, "Found 12 modules");
    await expect(h.co.synthesize(runId)).rejects.toThrow(
      /not ready to synthesize: still in progress: B \(QUEUED\)/,
    );
    await integrateOrder(h, b, "Outline has 5 parts");
    await h.co.dispatch(runId);
    await integrateOrder(h, c, "Summary written");

    const result = await h.co.synthesize(runId);
    expect(result.status).toBe("COMPLETE");
    expect(result.reply).toContain("Objective: Summarize the repo");
    expect(result.reply).toContain("- A: Found 12 modules (artifacts: outputs/result.md)");
    expect(result.reply).toContain("- C: Summary written");
    expect(result.artifacts.map((x) => x.order_id)).toEqual([a, b, c]);

    const [completed] = await h.store.read({ runId, types: ["RUN_COMPLETED"] });
    expect(completed?.payload.summary).toBe(result.reply);
    expect((await h.co.runStatus(runId)).summary).toBe(result.reply);
    // A concluded run answers with its stored reply and appends nothing more.
    const head = await h.store.head();
    expect((await h.co.synthesize(runId)).reply).toBe(result.reply);
    expect(await h.store.head()).toBe(head);
  });

  it("hands the outcomes and AARs to an injected synthesizer and stores its reply", async () => {
    const asked: SynthesisRequest[] = [];
    const synthesizer = {
      async synthesize(input: SynthesisRequest) {
        asked.push(input);
        return `All ${input.orders.length} done.`;
      },
    };
    const { runId, a, b, c } = await dispatchedRun({ synthesizer });
    for (const id of [a, b]) await integrateOrder(h, id, `done ${id}`);
    await h.co.dispatch(runId);
    await integrateOrder(h, c, "done C");
    expect((await h.co.synthesize(runId)).reply).toBe("All 3 done.");
    expect(asked[0]?.userId).toBe("u_1");
    expect(asked[0]?.orders.map((o) => [o.key, o.outcome, o.aar?.summary])).toEqual([
      ["A", "integrated", `done ${a}`],
      ["B", "integrated", `done ${b}`],
      ["C", "integrated", "done C"],
    ]);
  });

  it("reports an order without its AAR when the worktree's aar.json is not this order's or not JSON", async () => {
    const { runId, a, b, c } = await dispatchedRun();
    for (const id of [a, b]) await integrateOrder(h, id, `done ${id}`);
    await h.co.dispatch(runId);
    await integrateOrder(h, c, "done C");
    writeFileSync(join(h.worktree("demo", a), "aar.json"), "{ not json");
    const foreign = JSON.parse(readFileSync(join(h.worktree("demo", c), "aar.json"), "utf8"));
    writeFileSync(join(h.worktree("demo", b), "aar.json"), JSON.stringify(foreign));

    const { reply, status } = await h.co.synthesize(runId);
    expect(status).toBe("COMPLETE");
    expect(reply).toContain("- A: integrated; no after-action report was found");
    expect(reply).toContain("- B: integrated; no after-action report was found");
    expect(reply).toContain("- C: done C");
  });

  it("fails the run when an order fails beyond its retries, cancelling the orders stranded behind it", async () => {
    const { runId, a, b, c } = await dispatchedRun();
    await failOrder(a, runId, "the source was unreadable");
    await integrateOrder(h, b, "Outline has 5 parts");

    const result = await h.co.synthesize(runId);
    expect(result.status).toBe("FAILED");
    expect(result.reply).toContain("- A: failed: the source was unreadable");
    expect(result.reply).toContain("- C: cancelled: its dependency A did not complete");
    const [failed] = await h.store.read({ runId, types: ["RUN_FAILED"] });
    expect(failed?.payload.reasons).toEqual([
      { order_id: a, key: "A", outcome: "failed", reason: "the source was unreadable" },
      { order_id: c, key: "C", outcome: "cancelled", reason: "its dependency A did not complete" },
    ]);
    expect((await h.store.getOrder(c))?.status).toBe("CANCELLED");
    expect((await eventTypes(h.store, runId)).slice(-2)).toEqual(["ORDER_CANCELLED", "RUN_FAILED"]);
  });

  it("waits while a failed order still has a retry left", async () => {
    const { runId, b } = await dispatchedRun();
    await failOrder(b, runId, "timed out");
    await expect(h.co.synthesize(runId)).rejects.toThrow(ConflictError);
  });
});

describe("cancel", () => {
  it("cancels the run and every order that is not over, once", async () => {
    const { runId, a, b, c } = await dispatchedRun();
    await integrateOrder(h, a, "Found 12 modules");
    await expect(h.co.cancel(runId, " ")).rejects.toThrow(/\$\.reason: must be a non-empty string/);

    expect(await h.co.cancel(runId, "the user changed their mind")).toEqual({
      run_id: runId,
      cancelled: [b, c],
    });
    const cancelled = await h.store.read({ runId, types: ["RUN_CANCELLED", "ORDER_CANCELLED"] });
    expect(cancelled.map((e) => [e.type, e.order_id, e.payload.reason])).toEqual([
      ["RUN_CANCELLED", null, "the user changed their mind"],
      ["ORDER_CANCELLED", b, "the user changed their mind"],
      ["ORDER_CANCELLED", c, "the user changed their mind"],
    ]);
    const run = await h.co.runStatus(runId);
    expect(run.status).toBe("CANCELLED");
    expect(run.orders.map((o) => o.status)).toEqual(["COMPLETED", "CANCELLED", "CANCELLED"]);

    expect(await h.co.cancel(runId, "again")).toEqual({ run_id: runId, cancelled: [] });
    await expect(h.co.dispatch(runId)).rejects.toThrow(ConflictError);
    await expect(h.co.synthesize(runId)).rejects.toThrow(ConflictError);
  });
});
