import { describe, expect, it } from "vitest";
import { planAttempt } from "./attempt-plan.js";
import { dispatchFor } from "./order-dispatch.js";

const job = (attempt: number, maxRetries = 1) => ({
  attempt,
  constraints: { budget_seconds: 60, max_retries: maxRetries },
});

describe("what a claimed job does, from the order's state", () => {
  it("runs a queued order's first attempt as a fresh dispatch", () => {
    expect(planAttempt({ status: "QUEUED", attempt: 0 }, job(1), 1, undefined)).toEqual({
      action: "run",
      attempt: 1,
      retryCount: 0,
      reissue: false,
    });
  });

  it("runs a reissued attempt as a retry of the failed contract, and refuses one past the cap", () => {
    expect(planAttempt({ status: "QUEUED", attempt: 2 }, job(2), 1, "failed_contract")).toMatchObject({
      action: "run",
      retryCount: 1,
    });
    expect(planAttempt({ status: "QUEUED", attempt: 3 }, job(3, 1), 1, "failed")).toMatchObject({
      action: "skip",
      reason: expect.stringMatching(/retry limit reached/),
    });
  });

  it("leaves finished, cancelled and failed orders and stale attempts alone", () => {
    for (const status of ["COMPLETED", "CANCELLED", "FAILED"] as const)
      expect(planAttempt({ status, attempt: 1 }, job(1), 1, undefined).action).toBe("skip");
    expect(planAttempt({ status: "QUEUED", attempt: 2 }, job(1), 1, "failed")).toMatchObject({
      action: "skip",
      reason: "attempt 1 is stale: the order is at attempt 2",
    });
  });

  it("gives back a job for an attempt the ledger has not reissued the running order for yet", () => {
    for (const deliveries of [1, 2])
      expect(planAttempt({ status: "RUNNING", attempt: 1 }, job(2), deliveries, "failed")).toEqual({
        action: "wait",
        reason: "attempt 2 is not reissued yet: the order is at attempt 1",
      });
  });

  it("blocks a running order on a first delivery and reissues it on a redelivery (its worker died)", () => {
    expect(planAttempt({ status: "RUNNING", attempt: 1 }, job(1), 1, undefined)).toMatchObject({
      action: "skip",
      reason: expect.stringMatching(/duplicate blocked/),
    });
    expect(planAttempt({ status: "RUNNING", attempt: 1 }, job(1), 2, undefined)).toEqual({
      action: "run",
      attempt: 2,
      retryCount: 1,
      reissue: true,
    });
    expect(planAttempt({ status: "RUNNING", attempt: 2 }, job(2, 1), 2, undefined).action).toBe("give_up");
  });
});

describe("the seed-001 dispatch of an attempt", () => {
  it("is valid, names the order as its run and carries the retry count", () => {
    const dispatch = dispatchFor(
      {
        job_type: "EXECUTE_ORDER",
        order_id: "o1",
        run_id: "r1",
        theater_id: "demo",
        unit_id: "assault_o1",
        worktree_path: "/tmp/wt",
        attempt: 2,
        profile: { name: "executor_default", model: "m" },
        constraints: { budget_seconds: 60, max_retries: 1 },
        tool_policy: { network: false },
      },
      1,
    );
    expect(dispatch).toMatchObject({
      run_id: "o1",
      task_type: "code",
      repo: "ironclaw/demo",
      branch: "jarvis-order_o1",
      retry_count: 1,
    });
    expect(dispatch.acceptance_tests).toHaveLength(1);
  });
});
