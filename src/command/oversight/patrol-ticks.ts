import type { EventStore } from "../../ledger/index.js";

/** PATROL_TICK events read per page while catching up. */
const PAGE = 1_000;

export interface SeenTick {
  eventId: string;
  /** When the duty officer says it ticked (the event's ts, stamped by its clock). */
  at: number;
  position: number;
}

/**
 * The duty officer's heartbeat as the ledger holds it: the last PATROL_TICK and how many there have been. It
 * catches up from where it stopped, so an audit reads only the ticks since the last one. With a duty officer
 * named, only its ticks count: several hosts may share one ledger, and another host's ticks say nothing about
 * this one's duty officer.
 */
export class PatrolTicks {
  private through = 0;
  private seen = 0;
  private latest: SeenTick | undefined;

  constructor(
    private readonly store: EventStore,
    private readonly dutyOfficerId?: string,
  ) {}

  /** The last tick, or undefined when there was none. */
  get last(): SeenTick | undefined {
    return this.latest;
  }

  /** How many ticks the ledger held at the last catch-up. */
  get count(): number {
    return this.seen;
  }

  async catchUp(): Promise<void> {
    const head = await this.store.head();
    while (this.through < head) {
      const page = await this.store.read({
        after: this.through,
        through: head,
        types: ["PATROL_TICK"],
        limit: PAGE,
      });
      for (const event of page) {
        if (this.dutyOfficerId !== undefined && event.payload.duty_officer !== this.dutyOfficerId) continue;
        this.seen += 1;
        this.latest = { eventId: event.event_id, at: Date.parse(event.ts), position: event.position };
      }
      this.through = page.length < PAGE ? head : (page.at(-1)?.position ?? head);
    }
  }
}
