import type { Clock } from "../../src/agent/index.js";

interface Timer {
  id: number;
  at: number;
  fn: () => void;
}

/**
 * A clock that moves only when told: timers fire in order as `advance` passes their time. Like real timers they
 * wait in the monotonic clock, which `advance` moves with the wall clock and `set` leaves where it is.
 */
export class ManualClock implements Clock {
  private timers: Timer[] = [];
  private nextId = 1;
  private elapsed = 0;

  constructor(private current: number) {}

  now(): number {
    return this.current;
  }

  monotonic(): number {
    return this.elapsed;
  }

  setTimer(fn: () => void, ms: number): unknown {
    const timer = { id: this.nextId++, at: this.elapsed + ms, fn };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimer(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  /**
   * Sets the wall clock without firing anything or moving the monotonic clock: a machine that was switched
   * off, or a VM resumed from disk whose clock is then set.
   */
  set(time: number): void {
    this.current = time;
  }

  /** Moves both clocks forward, firing each due timer at its own time. */
  advance(ms: number): void {
    const end = this.elapsed + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.current += due.at - this.elapsed;
      this.elapsed = due.at;
      due.fn();
    }
    this.current += end - this.elapsed;
    this.elapsed = end;
  }

  pendingTimers(): number {
    return this.timers.length;
  }
}
