import type { Clock } from "../../src/agent/index.js";

interface Timer {
  id: number;
  at: number;
  fn: () => void;
}

/** A clock that moves only when told: timers fire in order as `advance` passes their time. */
export class ManualClock implements Clock {
  private timers: Timer[] = [];
  private nextId = 1;

  constructor(private current: number) {}

  now(): number {
    return this.current;
  }

  setTimer(fn: () => void, ms: number): unknown {
    const timer = { id: this.nextId++, at: this.current + ms, fn };
    this.timers.push(timer);
    return timer.id;
  }

  clearTimer(handle: unknown): void {
    this.timers = this.timers.filter((t) => t.id !== handle);
  }

  /** Jumps to a time without firing anything in between, as a machine that was switched off would. */
  set(time: number): void {
    this.current = time;
  }

  /** Moves forward, firing each due timer at its own time. */
  advance(ms: number): void {
    const end = this.current + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.timers = this.timers.filter((t) => t !== due);
      this.current = Math.max(this.current, due.at);
      due.fn();
    }
    this.current = end;
  }

  pendingTimers(): number {
    return this.timers.length;
  }
}
