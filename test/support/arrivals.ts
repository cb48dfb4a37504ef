/** What a fake server received, awaited: `arrived()` on each call wakes whoever waits for a count of them. */
export function createArrivals() {
  const waiters = new Set<() => void>();
  return {
    arrived(): void {
      for (const wake of waiters) wake();
    },
    /** Resolves once `count()` reaches `wanted`; rejects after `timeoutMs`, naming `what` and how many came. */
    waitFor(count: () => number, wanted: number, what: string, timeoutMs = 5_000): Promise<void> {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (count() < wanted) return;
          cleanup();
          resolve();
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`expected ${wanted} ${what}, got ${count()}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
  };
}
