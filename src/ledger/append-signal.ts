/**
 * Wakes subscribers when this process (or, for PostgreSQL, a notification from another) moved the head. It
 * only shortens waits: subscribers re-read the head after every wake-up and also wake on a timeout, so a
 * missed or spurious signal can delay an event but never lose or repeat one.
 */
export class AppendSignal {
  private known = 0;
  private readonly waiters = new Set<() => void>();

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
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, options.timeoutMs);
      options.signal?.addEventListener("abort", done, { once: true });
      this.waiters.add(done);
    });
  }

  /** Releases every waiter, e.g. when the store closes. */
  wakeAll(): void {
    for (const wake of [...this.waiters]) wake();
  }
}
