import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { JobQueue } from "../../src/command/index.js";
import { InvalidInputError, ValidationError } from "../../src/core/index.js";
import { queueConcurrency } from "./queue-concurrency.js";
import { queueJob, waitFor } from "./queue-jobs.js";

/** One queue for one test: the queue, more instances on the same store, and how a child process reaches it. */
export interface QueueUnderTest {
  queue: JobQueue;
  /** Another independent instance on the same store, as another process would open it. */
  connect(): Promise<JobQueue>;
  /** Arguments that point test/command/fixtures/queue-process.ts at this store. */
  args: string[];
  close(): Promise<void>;
}

export interface QueueKind {
  name: string;
  open(): Promise<QueueUnderTest>;
}

const LONG = 60_000;

/** The behaviour every JobQueue implementation shares (job-queue.ts), run once per implementation. */
export function queueConformance(kind: QueueKind): void {
  describe(`${kind.name} job queue`, () => {
    let store: QueueUnderTest;
    let queue: JobQueue;
    beforeEach(async () => {
      store = await kind.open();
      queue = store.queue;
    });
    afterEach(async () => {
      await store.close();
    });

    it("hands an enqueued job to one worker, and never again once it is complete", async () => {
      const job = queueJob("o1");
      const queued = await queue.enqueue(job);
      expect(queued.duplicate).toBe(false);
      expect(await queue.counts()).toEqual({ waiting: 1, held: 0, done: 0 });
      const before = Date.now();
      const claimed = await queue.claim("w1", LONG);
      expect(claimed).toMatchObject({ id: queued.id, job, deliveries: 1 });
      expect(Date.parse(claimed?.leaseExpiresAt ?? "")).toBeGreaterThan(before + LONG / 2);
      expect(await queue.counts()).toEqual({ waiting: 0, held: 1, done: 0 });
      expect(await queue.complete(queued.id, "w1")).toBe(true);
      expect(await queue.claim("w2", LONG)).toBeUndefined();
      expect(await queue.counts()).toEqual({ waiting: 0, held: 0, done: 1 });
    });

    it("hands a job back with the keys the seed does not name, as it was enqueued", async () => {
      const job = {
        ...queueJob("o1"),
        priority: "high",
        profile: { ...queueJob("o1").profile, temperature: 0 },
      };
      await queue.enqueue(job);
      expect((await queue.claim("w1", LONG))?.job).toEqual(job);
    });

    it("hands out the oldest waiting job first", async () => {
      const ids = [];
      for (const order of ["a", "b", "c"]) ids.push((await queue.enqueue(queueJob(order))).id);
      const claimed = [];
      for (let i = 0; i < 3; i++) claimed.push((await queue.claim("w1", LONG))?.id);
      expect(claimed).toEqual(ids);
    });

    it("queues a job once per key while it is waiting, held or done; a new attempt is a new job", async () => {
      const first = await queue.enqueue(queueJob("o1"));
      expect(await queue.enqueue(queueJob("o1"))).toEqual({ id: first.id, duplicate: true });
      await queue.claim("w1", LONG);
      expect(await queue.enqueue(queueJob("o1"))).toEqual({ id: first.id, duplicate: true });
      await queue.complete(first.id, "w1");
      expect(await queue.enqueue(queueJob("o1"))).toEqual({ id: first.id, duplicate: true });
      const retry = await queue.enqueue(queueJob("o1", 2));
      expect(retry.duplicate).toBe(false);
      expect(retry.id).not.toBe(first.id);
      const keyed = await queue.enqueue(queueJob("o2"), { key: "custom" });
      expect(await queue.enqueue(queueJob("o3"), { key: "custom" })).toEqual({
        id: keyed.id,
        duplicate: true,
      });
      expect(await queue.counts()).toEqual({ waiting: 2, held: 0, done: 1 });
    });

    it("refuses an invalid job, naming the field, and queues nothing", async () => {
      const { order_id: _, ...noOrder } = queueJob("o1");
      await expect(queue.enqueue(noOrder as never)).rejects.toThrow(/\$\.order_id/);
      await expect(queue.enqueue({ ...queueJob("o1"), attempt: 0 })).rejects.toThrow(ValidationError);
      await expect(queue.enqueue({ ...queueJob("o1"), attempt: 4 })).rejects.toThrow(
        /\$\.attempt: must be at most 3/,
      );
      await expect(queue.enqueue({ ...queueJob("o1"), job_type: "RUN" as never })).rejects.toThrow(
        /\$\.job_type/,
      );
      await expect(queue.enqueue(queueJob("o1"), { key: "" })).rejects.toThrow(/^key: /);
      await expect(queue.claim("w1", 0)).rejects.toThrow(InvalidInputError);
      await expect(queue.claim("", LONG)).rejects.toThrow(/^workerId: /);
      expect(await queue.counts()).toEqual({ waiting: 0, held: 0, done: 0 });
    });

    it("keeps a held job from other workers while its lease holds", async () => {
      const other = await store.connect();
      const { id } = await queue.enqueue(queueJob("o1"));
      expect((await queue.claim("w1", LONG))?.id).toBe(id);
      expect(await other.claim("w2", LONG)).toBeUndefined();
      expect(await other.complete(id, "w2")).toBe(false);
      expect(await other.renew(id, "w2", LONG)).toBe(false);
      expect(await other.release(id, "w2")).toBe(false);
      expect(await queue.complete("no-such-job", "w1")).toBe(false);
      expect(await queue.complete(id, "w1")).toBe(true);
    });

    it("gives a job whose lease expired to another worker; the first holder can then do nothing with it", async () => {
      const other = await store.connect();
      const { id } = await queue.enqueue(queueJob("o1"));
      await queue.claim("w1", 200);
      const second = await waitFor(() => other.claim("w2", LONG), "the expired job to be claimable");
      expect(second).toMatchObject({ id, deliveries: 2 });
      expect(await queue.renew(id, "w1", LONG)).toBe(false);
      expect(await queue.complete(id, "w1")).toBe(false);
      expect(await queue.release(id, "w1")).toBe(false);
      expect(await other.complete(id, "w2")).toBe(true);
      expect(await queue.counts()).toEqual({ waiting: 0, held: 0, done: 1 });
    });

    it("does not let a holder renew or complete once its lease has expired, even before another claims it", async () => {
      const { id } = await queue.enqueue(queueJob("o1"));
      const claimed = await queue.claim("w1", 200);
      const expiry = Date.parse(claimed?.leaseExpiresAt ?? "");
      await waitFor(async () => (Date.now() > expiry + 50 ? true : undefined), "the lease to expire");
      expect(await queue.counts()).toEqual({ waiting: 1, held: 0, done: 0 });
      expect(await queue.renew(id, "w1", LONG)).toBe(false);
      expect(await queue.complete(id, "w1")).toBe(false);
    });

    it("extends a lease on renewal, past the expiry the claim gave it", async () => {
      const other = await store.connect();
      const { id } = await queue.enqueue(queueJob("o1"));
      const claimed = await queue.claim("w1", 1_000);
      expect(await queue.renew(id, "w1", LONG)).toBe(true);
      const firstExpiry = Date.parse(claimed?.leaseExpiresAt ?? "");
      await waitFor(
        async () => (Date.now() > firstExpiry + 50 ? true : undefined),
        "the first lease to pass",
      );
      expect(await other.claim("w2", LONG)).toBeUndefined();
      expect(await queue.counts()).toEqual({ waiting: 0, held: 1, done: 0 });
      expect(await queue.complete(id, "w1")).toBe(true);
    });

    it("makes a released job claimable at once, and the releaser no longer holds it", async () => {
      const other = await store.connect();
      const { id } = await queue.enqueue(queueJob("o1"));
      await queue.claim("w1", LONG);
      expect(await queue.release(id, "w1")).toBe(true);
      expect(await other.claim("w2", LONG)).toMatchObject({ id, deliveries: 2 });
      expect(await queue.complete(id, "w1")).toBe(false);
    });

    it("keeps jobs, held ones included, when the queue is closed and opened again", async () => {
      const ids = [];
      for (const order of ["a", "b", "c"]) ids.push((await queue.enqueue(queueJob(order))).id);
      await queue.claim("w1", LONG);
      await queue.close();
      const reopened = await store.connect();
      expect(await reopened.counts()).toEqual({ waiting: 2, held: 1, done: 0 });
      expect(await reopened.claim("w2", LONG)).toMatchObject({
        id: ids[1],
        job: queueJob("b"),
        deliveries: 1,
      });
      expect(await reopened.complete(ids[0] ?? "", "w1")).toBe(true);
    });

    queueConcurrency(() => store);
  });
}
