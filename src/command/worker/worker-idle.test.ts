import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { SqliteEventStore } from "../../ledger/index.js";
import type { JobQueue } from "../queue/job-queue.js";
import { SqliteJobQueue } from "../queue/sqlite-queue.js";
import { Worker } from "./worker.js";

let dir = "";
let queue: SqliteJobQueue;
let store: SqliteEventStore;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "ironclaw-worker-idle-"));
  queue = await SqliteJobQueue.open(join(dir, "queue.db"));
  store = await SqliteEventStore.open({ path: join(dir, "ledger.db") });
});
afterEach(async () => {
  await queue.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

/** The real queue, telling when it has been asked for a job `count` times. */
function countingClaims(inner: JobQueue, count: number): { queue: JobQueue; reached: Promise<void> } {
  let claims = 0;
  let reach = () => {};
  const reached = new Promise<void>((resolve) => {
    reach = resolve;
  });
  const queue: JobQueue = {
    kind: inner.kind,
    enqueue: (job, options) => inner.enqueue(job, options),
    claim: (workerId, leaseMs) => {
      claims += 1;
      if (claims >= count) reach();
      return inner.claim(workerId, leaseMs);
    },
    renew: (id, workerId, leaseMs) => inner.renew(id, workerId, leaseMs),
    complete: (id, workerId) => inner.complete(id, workerId),
    release: (id, workerId) => inner.release(id, workerId),
    counts: () => inner.counts(),
    close: () => inner.close(),
  };
  return { queue, reached };
}

const unused = (what: string) => () => Promise.reject(new Error(`an idle worker used its ${what}`));

describe("an idle worker", () => {
  it("pauses between empty claims for as long as it runs without piling listeners on its stop signal", async () => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on("warning", onWarning);
    try {
      const counting = countingClaims(queue, 40);
      const worker = new Worker({
        store,
        queue: counting.queue,
        vault: { openWorktree: unused("vault"), commitAll: unused("vault") },
        cells: { start: unused("cells"), release: unused("cells") },
        workerId: "idle",
        leaseMs: 1_000,
        ownerOf: async () => undefined,
        modelProvider: "local",
        idleMs: 1,
      });
      worker.start(1);
      await counting.reached;
      await worker.stop();
      // A warning is emitted on the next tick of the listener that passed the limit.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.startsWith("MaxListenersExceededWarning"))).toEqual([]);
      expect(await queue.counts()).toEqual({ waiting: 0, held: 0, done: 0 });
    } finally {
      process.off("warning", onWarning);
    }
  });
});
