/**
 * The stale-request guard every controller uses: each request of a kind takes a ticket, and its answer is
 * applied only while that ticket is still the newest of its kind. Opening file B while file A loads drops A's
 * answer; disposing the controller drops every answer still on its way.
 */
export interface Generations {
  next(kind: string): number;
  isCurrent(kind: string, ticket: number): boolean;
  /** Makes every outstanding ticket stale (unmount). */
  invalidateAll(): void;
}

export function createGenerations(): Generations {
  const latest = new Map<string, number>();
  let counter = 0;
  let floor = 0;
  return {
    next(kind) {
      counter += 1;
      latest.set(kind, counter);
      return counter;
    },
    isCurrent(kind, ticket) {
      return ticket > floor && latest.get(kind) === ticket;
    },
    invalidateAll() {
      floor = counter;
    },
  };
}
