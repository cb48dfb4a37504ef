import { describe, expect, it } from "vitest";
import { AsyncQueue } from "./async-queue.js";

async function readAll<T>(queue: AsyncQueue<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of queue) out.push(item);
  return out;
}

describe("AsyncQueue", () => {
  it("yields what was pushed, before and while it is read, and ends on close", async () => {
    const queue = new AsyncQueue<number>();
    queue.push(1);
    const reading = readAll(queue);
    setTimeout(() => {
      queue.push(2);
      queue.close();
      queue.push(3);
    }, 5);
    expect(await reading).toEqual([1, 2]);
  });

  it("yields what was pushed before a failure, then throws it", async () => {
    const queue = new AsyncQueue<string>();
    const seen: string[] = [];
    queue.push("a");
    queue.fail(new Error("reply timed out"));
    await expect(
      (async () => {
        for await (const item of queue) seen.push(item);
      })(),
    ).rejects.toThrow("reply timed out");
    expect(seen).toEqual(["a"]);
  });

  it("wakes a reader that is waiting when it fails", async () => {
    const queue = new AsyncQueue<string>();
    const reading = readAll(queue);
    setTimeout(() => queue.fail(new Error("channel closed")), 5);
    await expect(reading).rejects.toThrow("channel closed");
  });
});
