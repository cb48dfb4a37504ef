import { expect, it } from "vitest";
import type { JobQueue } from "../../src/command/index.js";
import { startQueueChild } from "./queue-child.js";
import type { QueueUnderTest } from "./queue-conformance.js";
import { queueJob, waitFor } from "./queue-jobs.js";

const LONG = 60_000;
/** A child process starts node and tsx: seconds on a loaded machine, so these tests get a wider bound. */
const CHILD_TEST = { timeout: 90_000 };

async function enqueueMany(queue: JobQueue, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) ids.push((await queue.enqueue(queueJob(`o${i}`))).id);
  return ids;
}

/** Claims until the queue is empty; completes each job when `complete` is set, else keeps holding it. */
async function drain(queue: JobQueue, worker: string, complete: boolean): Promise<string[]> {
  const claimed: string[] = [];
  for (let job = await queue.claim(worker, LONG); job; job = await queue.claim(worker, LONG)) {
    claimed.push(job.id);
    if (complete) expect(await queue.complete(job.id, worker)).toBe(true);
  }
  return claimed;
}

function expectEachOnce(claims: string[][], ids: string[]): void {
  const all = claims.flat();
  expect(new Set(all).size).toBe(all.length);
  expect([...all].sort()).toEqual([...ids].sort());
}

/** Claimers in parallel, in this process and in another one; part of queueConformance. */
export function queueConcurrency(current: () => QueueUnderTest): void {
  it("never gives one job to two queue instances claiming at once", async () => {
    const store = current();
    const ids = await enqueueMany(store.queue, 50);
    const other = await store.connect();
    const claims = await Promise.all([drain(store.queue, "w1", false), drain(other, "w2", false)]);
    expectEachOnce(claims, ids);
    expect(await store.queue.counts()).toEqual({ waiting: 0, held: 50, done: 0 });
  });

  it("hands 200 jobs to 8 concurrent claimers each exactly once, and loses none", async () => {
    const store = current();
    const ids = await enqueueMany(store.queue, 200);
    const queues = [store.queue];
    for (let i = 1; i < 8; i++) queues.push(await store.connect());
    const claims = await Promise.all(queues.map((q, i) => drain(q, `w${i}`, true)));
    expectEachOnce(claims, ids);
    expect(await store.queue.counts()).toEqual({ waiting: 0, held: 0, done: 200 });
  });

  it("never gives one job to this process and another process claiming at once", CHILD_TEST, async () => {
    const store = current();
    const ids = await enqueueMany(store.queue, 100);
    const child = startQueueChild([...store.args, "claim-all", "child"]);
    await child.line("ready");
    child.child.stdin?.write("go\n");
    const mine = await drain(store.queue, "parent", true);
    const { code, stderr } = await child.exited;
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const theirs = child.lines.filter((l) => l.startsWith("claimed ")).map((l) => l.slice("claimed ".length));
    expectEachOnce([mine, theirs], ids);
    expect(await store.queue.counts()).toEqual({ waiting: 0, held: 0, done: 100 });
  });

  it(
    "hands a job held by a killed process to another worker once its lease expires",
    CHILD_TEST,
    async () => {
      const store = current();
      const [id] = await enqueueMany(store.queue, 1);
      const child = startQueueChild([...store.args, "hold", "child", "300"]);
      expect(await child.line("held ")).toBe(`held ${id}`);
      child.child.kill("SIGKILL");
      await child.exited;
      const claimed = await waitFor(
        () => store.queue.claim("survivor", LONG),
        "the dead holder's lease to expire",
      );
      expect(claimed).toMatchObject({ id, deliveries: 2, job: queueJob("o0") });
    },
  );

  it("keeps every acknowledged enqueue of a process that is killed", CHILD_TEST, async () => {
    const store = current();
    const child = startQueueChild([...store.args, "enqueue", "killed", "5"]);
    await waitFor(async () => (child.lines.length >= 5 ? true : undefined), "five acknowledged enqueues");
    child.child.kill("SIGKILL");
    await child.exited;
    const acknowledged = child.lines.filter((l) => l.startsWith("enqueued ")).map((l) => l.slice(9));
    expect(acknowledged).toHaveLength(5);
    expect(await drain(await store.connect(), "after", false)).toEqual(acknowledged);
  });
}
