import type { EventQuery, EventStore, RecordedEvent } from "./event-store.js";

export interface SubscribeOptions {
  /** The checkpoint: deliver events after this global position (default 0, from the start). */
  after?: number;
  /** Only events of one run, one order or some types. */
  filter?: Pick<EventQuery, "runId" | "orderId" | "types">;
  /** Keep following live appends after catching up (default true); false ends at the head. */
  follow?: boolean;
  /** Events read per query while catching up (default 500). */
  pageSize?: number;
  /**
   * Longest wait before re-checking the head (default 200 ms). Appends through the same store object and, on
   * PostgreSQL, NOTIFY wake a subscriber at once; this bounds the delay for anything else, such as another
   * process writing to the same SQLite file.
   */
  pollIntervalMs?: number;
  signal?: AbortSignal;
}

/**
 * Events from a checkpoint on, in position order, each exactly once: first the backlog, then live appends.
 *
 * Each round observes the head first and then reads only up to it. Both stores commit positions in order
 * (SQLite has one writer; PostgreSQL assigns them under a lock held until commit), so every position up to an
 * observed head is final, and the cursor can move to that head even when a filter matched nothing on the way.
 * Ends when the signal aborts.
 */
export async function* subscribe(
  store: EventStore,
  options: SubscribeOptions = {},
): AsyncGenerator<RecordedEvent> {
  const pageSize = options.pageSize ?? 500;
  const pollIntervalMs = options.pollIntervalMs ?? 200;
  const signal = options.signal;
  let cursor = options.after ?? 0;
  while (!signal?.aborted) {
    const head = await store.head();
    while (cursor < head && !signal?.aborted) {
      const page = await store.read({ ...options.filter, after: cursor, through: head, limit: pageSize });
      for (const event of page) {
        if (signal?.aborted) return;
        yield event;
      }
      const last = page.at(-1);
      cursor = page.length < pageSize || !last ? head : last.position;
    }
    if (options.follow === false) return;
    await store.waitForAppend(cursor, { timeoutMs: pollIntervalMs, ...(signal ? { signal } : {}) });
  }
}
