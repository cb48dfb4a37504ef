import { describe, expect, it } from "vitest";
import { AppendSignal } from "./append-signal.js";

describe("the append signal", () => {
  it("wakes a waiter when the head moves past its checkpoint", async () => {
    const signal = new AppendSignal();
    let woken = false;
    const waiting = signal.wait(3, { timeoutMs: 60_000 }).then(() => {
      woken = true;
    });
    await Promise.resolve();
    expect(woken).toBe(false);
    signal.notify(4);
    await waiting;
    expect(woken).toBe(true);
  });

  it("returns at once when the head is already past the checkpoint, and on timeout or abort otherwise", async () => {
    const signal = new AppendSignal();
    signal.notify(10);
    await signal.wait(9, { timeoutMs: 60_000 });
    await signal.wait(10, { timeoutMs: 1 });
    const controller = new AbortController();
    const aborted = signal.wait(10, { timeoutMs: 60_000, signal: controller.signal });
    controller.abort();
    await aborted;
  });
});
