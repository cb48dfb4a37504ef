import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { createLogger } from "../../core/index.js";
import { backoffDelay, type SocketEnd, SocketKeeper } from "./socket-keeper.js";

const logger = createLogger("keeper-test", { level: "silent" });

/**
 * A keeper whose connections end as `script` says, each after `ready()` when its entry asks; records the (fake)
 * time each connection was opened. Past the script, a connection stays open until the keeper stops.
 */
function scripted(script: Array<SocketEnd & { ready?: boolean }>) {
  const opened: number[] = [];
  const start = Date.now();
  const keeper = new SocketKeeper({
    name: "test",
    logger,
    initialDelayMs: 1_000,
    maxDelayMs: 8_000,
    random: () => 1,
    connect: async (signal, ready) => {
      opened.push(Date.now() - start);
      const step = script.shift();
      if (!step)
        return new Promise<SocketEnd>((resolve) =>
          signal.addEventListener("abort", () => resolve({ next: "backoff", why: "stopped" })),
        );
      if (step.ready) ready();
      if (step.why === "throw") throw new Error("boom");
      return step;
    },
  });
  return { keeper, opened };
}

const drop = (ready = false): SocketEnd & { ready: boolean } => ({ next: "backoff", why: "dropped", ready });

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe("a kept socket", () => {
  it("waits twice as long after each failure in a row, up to the cap, drawn from the upper half", () => {
    const delays = [0, 1, 2, 3, 4, 10].map((n) => backoffDelay(n, 1_000, 8_000, () => 1));
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 8_000, 8_000]);
    expect(backoffDelay(2, 1_000, 8_000, () => 0)).toBe(2_000);
    expect(backoffDelay(2000, 1_000, 8_000, () => 0.5)).toBe(6_000);
  });

  it("reconnects after a capped, growing backoff while connections fail, and starts over once one worked", async () => {
    const { keeper, opened } = scripted([drop(), drop(), drop(), drop(), drop(), drop(true), drop()]);
    keeper.start();
    await vi.advanceTimersByTimeAsync(60_000);
    // Failures wait 1, 2, 4, 8, 8 s; the connection that worked is followed after 1 s, the next failure 2 s.
    expect(opened).toEqual([0, 1_000, 3_000, 7_000, 15_000, 23_000, 24_000, 26_000]);
    await keeper.stop();
  });

  it("opens a new connection at once when the platform asks, and backs off when it asks before any worked", async () => {
    const { keeper, opened } = scripted([
      { next: "reconnect", why: "refresh", ready: true },
      { next: "reconnect", why: "invalid session", afterMs: 3_000, ready: true },
      { next: "reconnect", why: "refresh before hello" },
    ]);
    keeper.start();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(opened).toEqual([0, 0, 3_000, 4_000]);
    await keeper.stop();
  });

  it("takes a connection that throws as a drop, and stops for good on a refusal that cannot pass", async () => {
    const { keeper, opened } = scripted([
      { next: "backoff", why: "throw" },
      { next: "stop", why: "bad token" },
    ]);
    keeper.start();
    await vi.advanceTimersByTimeAsync(120_000);
    expect(opened).toEqual([0, 1_000]);
    await keeper.stop();
  });

  it("stops during a wait without waiting it out, and ends an open connection", async () => {
    const waiting = scripted([drop(), drop()]);
    waiting.keeper.start();
    await vi.advanceTimersByTimeAsync(1_500);
    expect(waiting.opened).toEqual([0, 1_000]);
    // Now in the 2 s wait: stop resolves without any time passing.
    await waiting.keeper.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(waiting.opened).toEqual([0, 1_000]);

    const open = scripted([]);
    open.keeper.start();
    await vi.advanceTimersByTimeAsync(0);
    await open.keeper.stop();
    await vi.advanceTimersByTimeAsync(60_000);
    expect(open.opened).toEqual([0]);
  });
});
