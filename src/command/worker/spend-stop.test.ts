import { afterEach, describe, expect, it } from "vitest";
import { type CoHarness, eventTypes, integrateOrder, openCo } from "../../../test/support/co-harness.js";
import type { CompletionVerdict, GatedCompletion, JobMessage } from "../../contracts/index.js";
import { closeAttempt } from "./attempt-ledger.js";
import { type AttemptOutcome, outcomeOf } from "./attempt-report.js";
import type { OrderTurn } from "./order-turn.js";
import { decideAfterAttempt } from "./spend-stop.js";

const REFUSAL =
  "budget exceeded: daily budget of $0.03 for user alice reached ($0.02 spent; this call could cost up to $0.01)";
const refused: AttemptOutcome = {
  status: "failed",
  issues: [{ path: "$", code: "spend_cap", message: REFUSAL }],
};
const failed: AttemptOutcome = {
  status: "failed",
  issues: [{ path: "$", code: "turn_failed", message: "the cell stopped" }],
};

describe("what follows an attempt a spend cap refused", () => {
  it("stops the run with the refusal as the reason, even with every retry left", () => {
    expect(decideAfterAttempt(refused, 1, 3)).toEqual({
      action: "stop_run",
      reason: `stopped by a spend cap: ${REFUSAL}`,
    });
  });

  it("retries any other failure within the cap, and closes the order past it or once completed", () => {
    expect(decideAfterAttempt(failed, 1, 1)).toEqual({ action: "retry" });
    expect(decideAfterAttempt(failed, 2, 1)).toEqual({ action: "close" });
    expect(decideAfterAttempt({ status: "review_requested", issues: [] }, 1, 1)).toEqual({ action: "close" });
  });

  it("fails the attempt on the host's refusal, whatever completion the agent wrote after it", () => {
    const turn: OrderTurn = {
      text: "<completion>{}</completion>",
      into: { files: [], bytes: 0, skipped: [], removed: [] },
      spendRefusal: REFUSAL,
    };
    const verdict: CompletionVerdict = { status: "review_requested", completion: {} as GatedCompletion };
    expect(outcomeOf(turn, verdict)).toEqual(refused);
  });
});

describe("closing a refused attempt on a real ledger", () => {
  let h: CoHarness;
  afterEach(async () => {
    await h.close();
  });

  it("records the failure and stops the run in one batch: nothing reissued, the integrated order kept", async () => {
    h = await openCo();
    const runId = await h.co.createRun({ userId: "alice", theaterId: "demo", objective: "Two notes" });
    h.planner.reply = {
      orders: [
        { key: "a", type: "implement", objective: "Write a" },
        { key: "b", type: "implement", objective: "Write b", depends_on: ["a"] },
      ],
    };
    const [a = "", b = ""] = (await h.co.plan(runId)).order_ids;
    await h.co.dispatch(runId);
    await integrateOrder(h, a, "Wrote a");
    await h.co.dispatch(runId);
    const queued = await h.queue.counts();

    const base = { garrison_id: "local", theater_id: "demo", run_id: runId, order_id: b, unit_id: "u_b" };
    await h.store.append({ ...base, type: "ORDER_STARTED", payload: { attempt: 1 } });
    const job = { attempt: 1, constraints: { budget_seconds: 60, max_retries: 2 } } as JobMessage;
    const closed = await closeAttempt(h, job, base, 1, { outcome: refused, events: [] });

    expect(closed).toBe("closed");
    expect(await h.queue.counts()).toEqual(queued);
    const types = await eventTypes(h.store, runId);
    expect(types.slice(-3)).toEqual(["ORDER_FAILED", "RUN_CANCELLED", "ORDER_CANCELLED"]);
    expect(types).not.toContain("ORDER_REISSUED");
    const [cancelled] = await h.store.read({ runId, types: ["RUN_CANCELLED"] });
    expect(cancelled?.payload.reason).toBe(`stopped by a spend cap: ${REFUSAL}`);
    const [orderCancelled] = await h.store.read({ orderId: b, types: ["ORDER_CANCELLED"] });
    expect(orderCancelled?.payload.reason).toBe(`stopped by a spend cap: ${REFUSAL}`);
    expect((await h.store.getOrder(b))?.status).toBe("CANCELLED");
    expect((await h.store.getOrder(a))?.integration_state).toBe("INTEGRATED");
    expect((await h.store.getRun(runId))?.status).toBe("CANCELLED");
  });
});
