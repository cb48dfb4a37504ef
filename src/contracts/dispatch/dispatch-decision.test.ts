import { describe, expect, it } from "vitest";
import { decideDispatch } from "./dispatch-decision.js";

describe("decideDispatch", () => {
  it("starts a run_id that has no run yet", () => {
    expect(decideDispatch(undefined)).toEqual({ action: "start", retry_count: 0 });
  });

  it.each(["failed", "failed_contract"] as const)("retries a %s run and increments retry_count", (status) => {
    expect(decideDispatch({ status, retry_count: 2 })).toEqual({ action: "retry", retry_count: 3 });
  });

  it.each([
    ["running", "is still running"],
    ["review_requested", "is awaiting review"],
    ["done", "is already done"],
  ] as const)("blocks a duplicate of a %s run", (status, why) => {
    expect(decideDispatch({ status, retry_count: 0 })).toEqual({
      action: "block",
      reason: `duplicate blocked: a run with this run_id ${why}`,
    });
  });

  it("retries without limit when no maximum is set", () => {
    expect(decideDispatch({ status: "failed", retry_count: 1000 })).toEqual({
      action: "retry",
      retry_count: 1001,
    });
  });

  it("retries up to an explicit maximum and blocks the attempt beyond it", () => {
    expect(decideDispatch({ status: "failed", retry_count: 2 }, { maxRetries: 3 })).toEqual({
      action: "retry",
      retry_count: 3,
    });
    expect(decideDispatch({ status: "failed_contract", retry_count: 3 }, { maxRetries: 3 })).toEqual({
      action: "block",
      reason: "retry limit reached: 3 of 3 retries used (last status failed_contract)",
    });
  });

  it("blocks every retry when the maximum is zero", () => {
    expect(decideDispatch({ status: "failed", retry_count: 0 }, { maxRetries: 0 }).action).toBe("block");
  });
});
