import { setTimeout as sleep } from "node:timers/promises";
import type Database from "better-sqlite3";
import type { Logger } from "../../core/index.js";
import { type EventStore, subscribe } from "../../ledger/index.js";
import type { ChannelRouter } from "../channels/channel.js";
import type { EscalationBook } from "./escalation-book.js";
import { escalationNotice } from "./escalation-notice.js";

// How far delivery has read the ledger, in host.db beside the channel links it delivers to: a restarted warden
// goes on after the last escalation it handed to the chats instead of sending them all again.
const DDL = `CREATE TABLE IF NOT EXISTS ledger_cursors (
  name TEXT PRIMARY KEY,
  position INTEGER NOT NULL
) WITHOUT ROWID;`;
const CURSOR = "escalation-delivery";
/** After a failed ledger read, how long to wait before following again. */
const RETRY_MS = 1_000;

export interface EscalationRelayDeps {
  store: EventStore;
  book: Pick<EscalationBook, "recipientsOf">;
  router: Pick<ChannelRouter, "notify">;
  db: Database.Database;
  logger: Logger;
  /** The subscription's longest wait between head checks (writes by another process). */
  pollIntervalMs?: number;
}

/**
 * Follows the ledger for ESCALATION_RAISED and sends each one, once, to its owners' linked chats with an
 * Acknowledge button. One already acknowledged when it is read (elsewhere, or while this warden was down) is
 * not sent. Stop it before the router closes.
 */
export class EscalationRelay {
  private readonly aborter = new AbortController();
  private readonly done: Promise<void>;

  constructor(private readonly deps: EscalationRelayDeps) {
    deps.db.exec(DDL);
    this.done = this.follow();
  }

  /** The ledger position up to which escalations were delivered. */
  delivered(): number {
    const row = this.deps.db.prepare("SELECT position FROM ledger_cursors WHERE name = ?").get(CURSOR) as
      | { position: number }
      | undefined;
    return row?.position ?? 0;
  }

  async stop(): Promise<void> {
    this.aborter.abort();
    await this.done;
  }

  private async follow(): Promise<void> {
    const { signal } = this.aborter;
    const save = this.deps.db.prepare(
      "INSERT INTO ledger_cursors (name, position) VALUES (?, ?) ON CONFLICT(name) DO UPDATE SET position = excluded.position",
    );
    while (!signal.aborted) {
      try {
        for await (const raised of subscribe(this.deps.store, {
          after: this.delivered(),
          filter: { types: ["ESCALATION_RAISED"] },
          signal,
          ...(this.deps.pollIntervalMs === undefined ? {} : { pollIntervalMs: this.deps.pollIntervalMs }),
        })) {
          const { text, buttons } = escalationNotice(raised);
          for (const userId of await this.deps.book.recipientsOf(raised))
            this.deps.router.notify(userId, text, undefined, buttons);
          // Recorded as soon as the sends are queued: a warden dying now loses a message rather than doubling it.
          save.run(CURSOR, raised.position);
        }
      } catch (err) {
        if (signal.aborted) return;
        this.deps.logger.error({ err }, "escalation delivery stopped; following the ledger again shortly");
        await sleep(RETRY_MS, undefined, { signal }).catch(() => undefined);
      }
    }
  }
}
