import type { JobMessage } from "../../src/contracts/index.js";

/** A valid EXECUTE_ORDER job (seed 000 §4's example) for an order. */
export function queueJob(orderId: string, attempt = 1): JobMessage {
  return {
    job_type: "EXECUTE_ORDER",
    order_id: orderId,
    run_id: "run-1",
    theater_id: "demo",
    unit_id: "assault_abc123",
    worktree_path: `/srv/theaters/demo/worktrees/order_${orderId}`,
    attempt,
    profile: { name: "executor_default", model: "meta-llama/llama-3.1-8b-instruct" },
    constraints: { budget_seconds: 60, max_retries: 2 },
    tool_policy: { network: false, fs_allowlist: ["./*"] },
  };
}

/** Polls `check` until it returns a value other than undefined; fails after `timeoutMs` (a bound, not a speed). */
export async function waitFor<T>(
  check: () => Promise<T | undefined>,
  what: string,
  timeoutMs = 20_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
