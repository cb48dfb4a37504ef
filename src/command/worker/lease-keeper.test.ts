import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { JobMessage } from "../../contracts/index.js";
import { SqliteJobQueue } from "../queue/sqlite-queue.js";
import { keepLease } from "./lease-keeper.js";

let dir = "";
let queue: SqliteJobQueue;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ironclaw-lease-"));
  queue = await SqliteJobQueue.open(join(dir, "queue.db"));
});
afterEach(async () => {
  await queue.close();
  await rm(dir, { recursive: true, force: true });
});

const job: JobMessage = {
  job_type: "EXECUTE_ORDER",
  order_id: "o1",
  run_id: "r1",
  theater_id: "demo",
  unit_id: "assault_o1",
  worktree_path: "/tmp/wt",
  attempt: 1,
  profile: { name: "executor_default", model: "m" },
  constraints: { budget_seconds: 60, max_retries: 1 },
  tool_policy: { network: false },
};

const aborted = (signal: AbortSignal) =>
  new Promise<void>((resolve) => signal.addEventListener("abort", () => resolve(), { once: true }));

describe("a held job's lease", () => {
  it("is renewed while the job runs, so no other worker can claim it past its first length", async () => {
    await queue.enqueue(job);
    const claimed = await queue.claim("w1", 600);
    const lease = keepLease(queue, claimed?.id ?? "", "w1", 600);
    try {
      // One and a half lengths: unrenewed, the lease would have run out; renewed every 200 ms, it has not.
      await new Promise((resolve) => setTimeout(resolve, 900));
      expect(await queue.claim("w2", 600)).toBeUndefined();
      expect(lease.signal.aborted).toBe(false);
    } finally {
      lease.stop();
    }
  });

  it("says it was lost once a renewal is refused", async () => {
    await queue.enqueue(job);
    const claimed = await queue.claim("w1", 150);
    const lease = keepLease(queue, claimed?.id ?? "", "w1", 150);
    try {
      // Finished elsewhere (as after a takeover): the holder may no longer report on it.
      expect(await queue.complete(claimed?.id ?? "", "w1")).toBe(true);
      await aborted(lease.signal);
      expect(lease.signal.aborted).toBe(true);
    } finally {
      lease.stop();
    }
  });
});
