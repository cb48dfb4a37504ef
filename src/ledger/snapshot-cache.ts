import { decodeOrderSnapshot, decodeRunSnapshot } from "./event-row.js";
import type { SnapshotSet } from "./projection.js";
import type { OrderSnapshot, RunSnapshot } from "./snapshot.js";
import { encodeSnapshot } from "./snapshot-encoding.js";

/**
 * Decoded snapshots by id, each with the stored text it was decoded from. An append reads the stored text of
 * every snapshot it touches (one indexed lookup) and decodes it (JSON.parse and the contract's schema) only
 * when the text differs from what this store last saw: another process's commit changes the text, so an
 * entry is never used stale. Entries are shared with append transactions, which never change a snapshot they
 * did not copy (the projections are pure), so they are never handed to callers outside the store.
 */
export class SnapshotCache<T> {
  private readonly entries = new Map<string, { text: string; snapshot: T; seenAt: number }>();

  constructor(
    private readonly decode: (text: string) => T,
    /** Oldest entries go first beyond this many: a bounded memory for ledgers with many streams. */
    private readonly capacity = 10_000,
  ) {}

  /** The snapshot stored as `text`, read from the store when its head was `at`. */
  read(id: string, text: string, at = 0): T {
    const entry = this.entries.get(id);
    if (entry !== undefined && entry.text === text) {
      entry.seenAt = Math.max(entry.seenAt, at);
      return entry.snapshot;
    }
    const snapshot = this.decode(text);
    this.remember(id, text, snapshot, at);
    return snapshot;
  }

  /** A snapshot the store held when its head was `at` (written there, or read). */
  remember(id: string, text: string, snapshot: T, at = 0): void {
    this.entries.delete(id);
    this.entries.set(id, { text, snapshot, seenAt: at });
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
  }

  /** The snapshot last seen at head `since` or later, or undefined. */
  seenSince(id: string, since: number): T | undefined {
    const entry = this.entries.get(id);
    return entry !== undefined && entry.seenAt >= since ? entry.snapshot : undefined;
  }

  clear(): void {
    this.entries.clear();
  }
}

/** Snapshots an append or a rebuild writes, with the canonical JSON each is stored as. */
export interface EncodedSnapshots {
  runs: Array<{ snapshot: RunSnapshot; text: string }>;
  orders: Array<{ snapshot: OrderSnapshot; text: string }>;
}

export function encodeSnapshots(set: SnapshotSet, which: "changed" | "all"): EncodedSnapshots {
  return {
    runs: set.runSnapshots(which).map((snapshot) => ({ snapshot, text: encodeSnapshot(snapshot) })),
    orders: set.orderSnapshots(which).map((snapshot) => ({ snapshot, text: encodeSnapshot(snapshot) })),
  };
}

/** The run and order caches of one store. */
export class SnapshotCaches {
  readonly runs = new SnapshotCache<RunSnapshot>(decodeRunSnapshot);
  readonly orders = new SnapshotCache<OrderSnapshot>(decodeOrderSnapshot);

  /** After a commit that left the head at `at`: what was written is what the next append will read back. */
  rememberAll(written: EncodedSnapshots, at = 0): void {
    for (const { snapshot, text } of written.runs) this.runs.remember(snapshot.run_id, text, snapshot, at);
    for (const { snapshot, text } of written.orders)
      this.orders.remember(snapshot.order_id, text, snapshot, at);
  }

  clear(): void {
    this.runs.clear();
    this.orders.clear();
  }
}
