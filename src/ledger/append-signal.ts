import { Emitter } from "../core/index.js";

/**
 * Wakes subscribers when this process (or, for PostgreSQL, a notification from another) moved the head. It
 * only shortens waits: subscribers re-read the head after every wake-up and also wake on a timeout, so a
 * missed or spurious signal can delay an event but never lose or repeat one.
 */
export class AppendSignal {
  private known = 0;
  private readonly wakeUps = new Emitter<[]>();

  notify(head: number): void {
    if (head > this.known) this.known = head;
    this.wakeAll();
  }

  wait(after: number, options: { timeoutMs: number; signal?: AbortSignal | undefined }): Promise<void> {
    if (this.known > after || options.signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        options.signal?.removeEventListener("abort", done);
        off();
        resolve();
      };
      const timer = setTimeout(done, options.timeoutMs);
      options.signal?.addEventListener("abort", done, { once: true });
      const off = this.wakeUps.on(done);
    });
  }

  /** Releases every waiter, e.g. when the store closes. */
  wakeAll(): void {
    this.wakeUps.emit();
  }
}
