// No imports, on purpose: the protocol peer loads this at a cell's boot without the rest of core.

/**
 * A typed event source: `on` subscribes and returns the unsubscribe function, `emit` calls every listener in
 * subscription order. A listener that throws does not stop the others: its error goes to `onListenerError`
 * when one is given, and otherwise the first error is rethrown to the emitter once every listener has run.
 */
export class Emitter<Args extends unknown[]> {
  private readonly listeners = new Set<(...args: Args) => void>();

  constructor(private readonly onListenerError?: (error: unknown) => void) {}

  on(listener: (...args: Args) => void): () => void {
    this.listeners.add(listener);
    return () => {
      this.listeners.delete(listener);
    };
  }

  emit(...args: Args): void {
    let failed: { error: unknown } | undefined;
    // A copy, so a listener that unsubscribes (or subscribes another) while being called changes the next emit.
    for (const listener of [...this.listeners]) {
      try {
        listener(...args);
      } catch (error) {
        if (this.onListenerError) this.onListenerError(error);
        else failed ??= { error };
      }
    }
    if (failed) throw failed.error;
  }

  get listenerCount(): number {
    return this.listeners.size;
  }
}
