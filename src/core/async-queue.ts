// No imports, on purpose: the protocol peer loads this at a cell's boot without the rest of core.

/**
 * Values pushed by one side and read by one `for await` on the other, in order. `close` ends the reading once
 * what was pushed has been read; `fail` makes it throw the error at that point instead. Pushes after either are
 * ignored: nothing is read after the end.
 */
export class AsyncQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private end: { error: unknown } | "closed" | undefined;
  private wake: (() => void) | undefined;

  push(item: T): void {
    if (this.end) return;
    this.items.push(item);
    this.wake?.();
  }

  close(): void {
    this.end ??= "closed";
    this.wake?.();
  }

  fail(error: unknown): void {
    this.end ??= { error };
    this.wake?.();
  }

  /** Pushed and not yet read. */
  get size(): number {
    return this.items.length;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    for (;;) {
      if (this.items.length > 0) {
        yield this.items.shift() as T;
        continue;
      }
      if (this.end === "closed") return;
      if (this.end) throw this.end.error;
      await new Promise<void>((resolve) => {
        this.wake = resolve;
      });
      this.wake = undefined;
    }
  }
}
