import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { CommandCells } from "../../src/command/cells/index.js";
import { SqliteJobQueue } from "../../src/command/index.js";
import { AttemptGuard } from "../../src/command/worker/attempt-guard.js";
import { closeAttempt } from "../../src/command/worker/attempt-ledger.js";
import { Worker, workerVaultOf } from "../../src/command/worker/index.js";
import type { AttemptRun } from "../../src/command/worker/run-attempt.js";
import type { JobMessage, LedgerEventInput } from "../../src/contracts/index.js";
import { type EventStore, IllegalTransitionError } from "../../src/ledger/index.js";
import { openVaultFixture, type VaultFixture } from "./vault-fixture.js";

/**
 * An attempt the order no longer waits for (the duty officer reissued it while its worker hung, or a lease expiry
 * handed it on) lands nothing, and a job the order still needs is never dropped: on a real SQLite ledger and
 * queue. No cell starts here: the run's owner is looked up first, and the tests use that moment to move the order.
 */
let fx: VaultFixture;
let queue: SqliteJobQueue;

beforeAll(async () => {
  fx = await openVaultFixture();
  queue = await SqliteJobQueue.open(join(fx.dir, "queue.db"));
});
afterAll(async () => {
  await queue?.close();
  await fx?.close();
});

const base = (orderId: string) => ({
  garrison_id: "local",
  theater_id: "demo",
  run_id: "r1",
  order_id: orderId,
  unit_id: `assault_${orderId}`,
});
const event = (orderId: string, type: string, payload: Record<string, unknown> = {}) =>
  ({ ...base(orderId), type, payload }) as LedgerEventInput;
const started = (orderId: string, attempt: number) => event(orderId, "ORDER_STARTED", { attempt });
const reissued = (orderId: string, attempt: number) =>
  event(orderId, "ORDER_REISSUED", { attempt, reason: "overdue" });
const stale = (orderId: string): LedgerEventInput[] => [
  event(orderId, "AAR_WRITTEN", { path: "aar.json" }),
  event(orderId, "ORDER_COMPLETED", { commit_sha: "abc1234" }),
];

function jobFor(orderId: string, attempt = 1, maxRetries = 0): JobMessage {
  return {
    job_type: "EXECUTE_ORDER",
    order_id: orderId,
    run_id: "r1",
    theater_id: "demo",
    unit_id: `assault_${orderId}`,
    worktree_path: join(fx.dir, "worktrees", orderId),
    attempt,
    profile: { name: "executor_default", model: "test-model" },
    constraints: { budget_seconds: 60, max_retries: maxRetries },
    tool_policy: { network: false },
  } as JobMessage;
}

/** A worker whose run owner lookup (the first thing an attempt does) runs `during`, then names nobody. */
function workerWith(store: EventStore, during: () => Promise<unknown> = async () => {}) {
  return new Worker({
    store,
    queue,
    vault: workerVaultOf(fx.vault),
    cells: {} as CommandCells,
    workerId: "w1",
    leaseMs: 30_000,
    modelProvider: "local",
    ownerOf: async () => {
      await during();
      return undefined;
    },
  });
}

async function types(orderId: string): Promise<string[]> {
  return (await fx.store.read({ orderId })).map((e) => e.type);
}

describe("the ledger's own rules against a stale attempt's closing batch", () => {
  it("hold for ORDER_COMPLETED while the reissued order waits in the queue", async () => {
    await fx.addOrder("l1");
    await fx.store.appendBatch([started("l1", 1), reissued("l1", 2)]);
    await expect(fx.store.appendBatch(stale("l1"))).rejects.toBeInstanceOf(IllegalTransitionError);
    expect(await fx.store.getOrder("l1")).toMatchObject({ status: "QUEUED", attempt: 2 });
  });

  it("do not hold for ORDER_FAILED while it waits, nor for ORDER_COMPLETED once the new attempt runs", async () => {
    await fx.addOrder("l2");
    await fx.store.appendBatch([started("l2", 1), reissued("l2", 2)]);
    await fx.store.append(event("l2", "ORDER_FAILED", { reason: "failed: attempt 1" }));
    expect(await fx.store.getOrder("l2")).toMatchObject({ status: "FAILED", attempt: 2 });

    await fx.addOrder("l3");
    await fx.store.appendBatch([started("l3", 1), reissued("l3", 2), started("l3", 2)]);
    await fx.store.appendBatch(stale("l3"));
    expect(await fx.store.getOrder("l3")).toMatchObject({ status: "COMPLETED", attempt: 2 });
  });
});

describe("closing an attempt", () => {
  const failed: AttemptRun = { outcome: { status: "failed", issues: [] }, events: [] };
  const completed = (orderId: string): AttemptRun => ({
    outcome: { status: "review_requested", issues: [] },
    events: stale(orderId),
  });

  it("refuses a stale attempt's result whether the new attempt waits or runs, and queues no retry for it", async () => {
    await fx.addOrder("c1");
    await fx.store.appendBatch([started("c1", 1), reissued("c1", 2)]);
    const before = await types("c1");
    const job = jobFor("c1", 1, 3);
    expect(await closeAttempt({ store: fx.store, queue }, job, base("c1"), 1, failed)).toBe("superseded");
    await fx.store.append(started("c1", 2));
    expect(await closeAttempt({ store: fx.store, queue }, job, base("c1"), 1, completed("c1"))).toBe(
      "superseded",
    );
    expect(await types("c1")).toEqual([...before, "ORDER_STARTED"]);
    expect(await fx.store.getOrder("c1")).toMatchObject({ status: "RUNNING", attempt: 2 });
    expect(await queue.counts()).toMatchObject({ waiting: 0, held: 0 });
  });

  it("records the current attempt's result though an observation moved the order's version meanwhile", async () => {
    await fx.addOrder("c2");
    await fx.store.append(started("c2", 1));
    await fx.store.append(event("c2", "RECOVERY_REQUIRED", { reason: "no commits lately" }));
    expect(await closeAttempt({ store: fx.store, queue }, jobFor("c2"), base("c2"), 1, completed("c2"))).toBe(
      "closed",
    );
    expect(await fx.store.getOrder("c2")).toMatchObject({ status: "COMPLETED", attempt: 1 });
  });
});

describe("a worker whose order is reissued while its attempt runs", () => {
  it("reports the attempt superseded and appends nothing for it", async () => {
    await fx.addOrder("w1");
    await queue.enqueue(jobFor("w1", 1, 2));
    // The duty officer reissues w1 and another worker starts attempt 2 while this worker's attempt 1 runs.
    const worker = workerWith(fx.store, () => fx.store.appendBatch([reissued("w1", 2), started("w1", 2)]));
    expect(await worker.runOnce()).toMatchObject({ kind: "superseded", orderId: "w1", attempt: 1 });
    expect(await types("w1")).toEqual(["ORDER_CREATED", "ORDER_STARTED", "ORDER_REISSUED", "ORDER_STARTED"]);
    expect(await queue.counts()).toMatchObject({ waiting: 0, held: 0 });
  });

  it("has its attempt guard abort as soon as a look at the ledger finds the order reissued", async () => {
    await fx.addOrder("w2");
    await fx.store.append(started("w2", 1));
    const guard = new AttemptGuard(fx.store, "w2", 1, 50);
    try {
      expect(await guard.check()).toBe(true);
      const aborted = new Promise((resolve) => guard.signal.addEventListener("abort", resolve));
      await fx.store.append(reissued("w2", 2));
      await aborted;
      expect(await guard.check()).toBe(false);
    } finally {
      guard.stop();
    }
  });
});

describe("a job its order still needs is never dropped", () => {
  /** The real store, but the order moves (an append by `move`) right after each of the first `times` reads. */
  function movingAfterRead(orderId: string, times: number, move: () => Promise<unknown>): EventStore {
    let reads = 0;
    return new Proxy(fx.store, {
      get(target, key, receiver) {
        if (key !== "getOrder") return Reflect.get(target, key, receiver);
        return async (id: string) => {
          const order = await target.getOrder(id);
          if (id === orderId && reads++ < times) await move();
          return order;
        };
      },
    });
  }

  it("starts an order whose ORDER_ENQUEUED lands between the worker's read and its ORDER_STARTED", async () => {
    await fx.addOrder("q1");
    const { id } = await queue.enqueue(jobFor("q1"));
    const enqueued = event("q1", "ORDER_ENQUEUED", { attempt: 1, job_id: id, queue: "sqlite" });
    const worker = workerWith(movingAfterRead("q1", 1, () => fx.store.append(enqueued)));
    expect(await worker.runOnce()).toMatchObject({ kind: "ran", orderId: "q1", attempt: 1 });
    expect(await types("q1")).toEqual(["ORDER_CREATED", "ORDER_ENQUEUED", "ORDER_STARTED", "ORDER_FAILED"]);
    expect(await queue.counts()).toMatchObject({ waiting: 0, held: 0 });
  });

  it("gives the job back to the queue when the order keeps moving under every try", async () => {
    await fx.addOrder("q2");
    await queue.enqueue(jobFor("q2"));
    const look = () => fx.store.append(event("q2", "RECOVERY_REQUIRED", { reason: "looked at" }));
    const worker = workerWith(movingAfterRead("q2", 3, look));
    await expect(worker.runOnce()).rejects.toThrow(/version/i);
    expect(await queue.counts()).toMatchObject({ waiting: 1, held: 0 });
    expect((await fx.store.getOrder("q2"))?.status).toBe("QUEUED");

    expect(await workerWith(fx.store).runOnce()).toMatchObject({ kind: "ran", orderId: "q2", attempt: 1 });
  });

  it("gives back a retry's job claimed before the batch reissuing its order lands, and runs it after", async () => {
    await fx.addOrder("q3");
    await fx.store.append(started("q3", 1));
    const { id } = await queue.enqueue(jobFor("q3", 2, 1));
    expect(await workerWith(fx.store).runOnce()).toMatchObject({ kind: "waiting", orderId: "q3" });
    expect(await queue.counts()).toMatchObject({ waiting: 1, held: 0 });

    await fx.store.appendBatch([
      reissued("q3", 2),
      event("q3", "ORDER_ENQUEUED", { attempt: 2, job_id: id, queue: "sqlite" }),
    ]);
    expect(await workerWith(fx.store).runOnce()).toMatchObject({ kind: "ran", orderId: "q3", attempt: 2 });
    expect(await fx.store.getOrder("q3")).toMatchObject({ status: "FAILED", attempt: 2 });
  });
});
