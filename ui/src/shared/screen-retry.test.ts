import { describe, expect, it } from "vitest";
import { chunkAddress, createScreenRetry, isChunkLoadError } from "./screen-retry.js";

function chunkError(url = "http://127.0.0.1:7410/ui/assets/cron-view.js") {
  return Object.assign(new Error(`Loading chunk 412 failed.\n(error: ${url})`), {
    name: "ChunkLoadError",
    request: url,
  });
}

/** Timers the test fires by hand, and the window's `online` event. */
function harness(probeAnswers: boolean[]) {
  const timers = new Map<number, { run: () => void; ms: number }>();
  let ids = 0;
  const events = new EventTarget();
  const seen = { probes: 0, recovered: 0 };
  const retry = createScreenRetry({
    probe: async () => {
      seen.probes += 1;
      return probeAnswers.shift() ?? false;
    },
    recover: () => {
      seen.recovered += 1;
    },
    events,
    setTimer: (run, ms) => {
      ids += 1;
      timers.set(ids, { run, ms });
      return ids;
    },
    clearTimer: (id) => timers.delete(id as number),
  });
  const fireTimer = async () => {
    const [id, timer] = [...timers.entries()].at(-1) ?? [];
    if (id === undefined || !timer) throw new Error("no timer armed");
    timers.delete(id);
    timer.run();
    await new Promise((r) => setTimeout(r, 0));
  };
  const armed = () => [...timers.values()].map((t) => t.ms);
  return { retry, events, seen, fireTimer, armed };
}

describe("a screen that failed to load", () => {
  it("tells a chunk that could not be fetched from a screen that threw", () => {
    expect(isChunkLoadError(chunkError())).toBe(true);
    expect(isChunkLoadError(new TypeError("Failed to fetch dynamically imported module: /x.js"))).toBe(true);
    expect(isChunkLoadError(new Error("Loading CSS chunk 7 failed.\n(/ui/assets/7.css)"))).toBe(true);
    expect(isChunkLoadError(new TypeError("cannot read properties of undefined"))).toBe(false);
    expect(isChunkLoadError("Loading chunk 1 failed")).toBe(false);
    expect(chunkAddress(chunkError("http://h/ui/assets/a.js"))).toBe("http://h/ui/assets/a.js");
    expect(chunkAddress(new Error("x"))).toBeUndefined();
  });

  it("retries on a timer that backs off, and recovers once the warden answers", async () => {
    const h = harness([false, false, true]);
    expect(h.armed()).toEqual([1_000]);
    await h.fireTimer();
    expect(h.armed()).toEqual([2_000]);
    await h.fireTimer();
    expect(h.armed()).toEqual([4_000]);
    expect(h.seen.recovered).toBe(0);
    await h.fireTimer();
    expect(h.seen).toEqual({ probes: 3, recovered: 1 });
    expect(h.armed()).toEqual([]);
  });

  it("tries at once when the browser comes back online, and stops listening once recovered", async () => {
    const h = harness([true, true]);
    h.events.dispatchEvent(new Event("online"));
    await new Promise((r) => setTimeout(r, 0));
    expect(h.seen).toEqual({ probes: 1, recovered: 1 });
    h.events.dispatchEvent(new Event("online"));
    await new Promise((r) => setTimeout(r, 0));
    expect(h.seen).toEqual({ probes: 1, recovered: 1 });
  });

  it("a Retry press that finds the warden still away says so and keeps the timer going", async () => {
    const h = harness([false]);
    await expect(h.retry.retryNow()).resolves.toBe(false);
    expect(h.retry.attempts()).toBe(1);
    expect(h.armed()).toEqual([2_000]);
    h.retry.dispose();
    expect(h.armed()).toEqual([]);
  });
});
