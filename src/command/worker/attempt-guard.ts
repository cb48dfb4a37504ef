import type { EventStore, OrderSnapshot } from "../../ledger/index.js";

/**
 * The order as the ledger has it, when `attempt` is still its current attempt and still running; undefined when
 * the order moved on (the duty officer reissued it, a lease expiry handed it to another worker, it was cancelled or
 * finished). Only the current attempt's files and result may land: a stale one would overwrite the branch the new
 * attempt owns, or close the order with a result nobody waits for.
 */
export async function currentAttempt(
  store: EventStore,
  orderId: string,
  attempt: number,
): Promise<OrderSnapshot | undefined> {
  const order = await store.getOrder(orderId);
  if (!order || order.attempt !== attempt) return undefined;
  return order.status === "RUNNING" || order.status === "BLOCKED" ? order : undefined;
}

/**
 * Watches one attempt while it runs: `signal` aborts as soon as a look at the ledger (every `periodMs`, or a call
 * to check()) finds the attempt superseded, which stops its cell and keeps its files out of the worktree.
 */
export class AttemptGuard {
  private readonly superseded = new AbortController();
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    private readonly store: EventStore,
    private readonly orderId: string,
    private readonly attempt: number,
    periodMs: number,
  ) {
    // A ledger that cannot be read is not a superseded attempt: the next look tries again.
    this.timer = setInterval(() => void this.check().catch(() => undefined), Math.max(50, periodMs));
    this.timer.unref();
  }

  get signal(): AbortSignal {
    return this.superseded.signal;
  }

  /** True while the attempt is the order's current one; once false, stays false. */
  async check(): Promise<boolean> {
    if (this.superseded.signal.aborted) return false;
    if (await currentAttempt(this.store, this.orderId, this.attempt)) return true;
    this.superseded.abort();
    return false;
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
