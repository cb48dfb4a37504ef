import type { Logger } from "../core/index.js";
import { type EventQuery, type EventStore, type RecordedEvent, subscribe } from "../ledger/index.js";

export interface LedgerFollowerOptions {
  store: EventStore;
  types: NonNullable<EventQuery["types"]>;
  /** Longest wait before looking again for events another process appended (default 2 s). */
  pollIntervalMs?: number;
  logger: Logger;
  /** Handles one event; a failure is logged with `failed` and the next event follows. */
  handle(event: RecordedEvent): Promise<void>;
  /** The log line of one event that failed: its fields and message. */
  failed(event: RecordedEvent, error: Error): [Record<string, unknown>, string];
  /** The log line when following itself breaks off. */
  lost: string;
}

/**
 * A warden task that follows command's ledger from its start, off every order's path: events recorded while no
 * warden ran are handled when one starts, so each handler must be idempotent. Appends through the same store wake
 * it at once; the poll only bounds what another process appends.
 */
export class LedgerFollower {
  private readonly stop = new AbortController();
  private following: Promise<void> | undefined;

  constructor(private readonly options: LedgerFollowerOptions) {}

  start(): void {
    this.following ??= this.follow();
  }

  /** Stops following; the event being handled, if any, is finished first. */
  async close(): Promise<void> {
    this.stop.abort();
    await this.following;
  }

  private async follow(): Promise<void> {
    const { signal } = this.stop;
    const { store, types, logger } = this.options;
    try {
      const events = subscribe(store, {
        filter: { types },
        pollIntervalMs: this.options.pollIntervalMs ?? 2_000,
        signal,
      });
      for await (const event of events)
        await this.options
          .handle(event)
          .catch((error: Error) => logger.warn(...this.options.failed(event, error)));
    } catch (error) {
      if (!signal.aborted) logger.warn({ err: error }, this.options.lost);
    }
  }
}
