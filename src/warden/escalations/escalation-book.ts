import { runOwner, type TheaterRegistry } from "../../command/index.js";
import type { Escalation, EscalationAck, LedgerEventType } from "../../contracts/index.js";
import { ConflictError, NotFoundError } from "../../core/index.js";
import { EventIdConflictError, type EventStore, type RecordedEvent } from "../../ledger/index.js";

export interface EscalationBookDeps {
  store: EventStore;
  theaters: Pick<TheaterRegistry, "get">;
  /** The host's admins, who own escalations of no run or theater (the sentinel's, a dead duty officer). */
  admins: () => string[];
}

/** Who acts on an escalation: a user, whether they are an admin, and the channel they act from. */
export interface EscalationActor {
  userId: string;
  admin: boolean;
  /** `api`, or `telegram:<bot>` for a linked chat. */
  channel: string;
}

const PAGE = 1_000;

/**
 * Escalations as the ledger has them: each ESCALATION_RAISED, open until an ESCALATION_ACKED names it. Whose one
 * is follows what it is about: the run's user, else the theater's owner, else the host's admins. Nothing is kept
 * beside the ledger, so an acknowledgement made anywhere (the API, a chat, another warden) shows everywhere.
 */
export class EscalationBook {
  // A run's owner is its RUN_CREATED, which never changes: looked up once per run.
  private readonly runOwners = new Map<string, string | undefined>();

  constructor(private readonly deps: EscalationBookDeps) {}

  /** The users an escalation is delivered to and who may acknowledge it. */
  async ownersOf(
    raised: RecordedEvent,
    theaterOwners = new Map<string, string | undefined>(),
  ): Promise<string[]> {
    if (raised.run_id) {
      if (!this.runOwners.has(raised.run_id))
        this.runOwners.set(raised.run_id, await runOwner(this.deps.store, raised.run_id));
      const owner = this.runOwners.get(raised.run_id);
      if (owner !== undefined) return [owner];
    }
    if (raised.theater_id) {
      // A theater is a file read; one listing asks once per theater.
      if (!theaterOwners.has(raised.theater_id))
        theaterOwners.set(raised.theater_id, (await this.deps.theaters.get(raised.theater_id))?.owner);
      const owner = theaterOwners.get(raised.theater_id);
      if (owner !== undefined) return [owner];
    }
    return this.deps.admins();
  }

  /** Who still has to hear of an escalation: its owners while it is open, nobody once acknowledged. */
  async recipientsOf(raised: RecordedEvent): Promise<string[]> {
    // An acknowledgement comes after what it acknowledges: only the acknowledgements since are read.
    for await (const ack of this.events(["ESCALATION_ACKED"], raised.position))
      if (ack.payload.escalation_id === raised.event_id) return [];
    return this.ownersOf(raised);
  }

  /** The escalations owned by `userId`, oldest first; only the unacknowledged ones when `open`. */
  async list(userId: string, options: { open?: boolean } = {}): Promise<Escalation[]> {
    const mine: Escalation[] = [];
    const theaterOwners = new Map<string, string | undefined>();
    for (const { raised, ack } of await this.readAll()) {
      if (options.open && ack) continue;
      if ((await this.ownersOf(raised, theaterOwners)).includes(userId)) mine.push(viewOf(raised, ack));
    }
    return mine;
  }

  /** The escalation if the actor may see it; another user's is answered as unknown (404), never as "not yours". */
  async get(actor: Pick<EscalationActor, "userId" | "admin">, escalationId: string): Promise<Escalation> {
    const { raised, ack } = await this.find(actor, escalationId);
    return viewOf(raised, ack);
  }

  /**
   * Records ESCALATION_ACKED (who, from which channel). Its event_id follows from the escalation's, so two
   * acknowledgements racing from a chat and the API (or two wardens) store one: the loser gets a ConflictError
   * naming who acknowledged it, from where and when, as does any later one.
   */
  async ack(actor: EscalationActor, escalationId: string): Promise<Escalation> {
    const { raised, ack } = await this.find(actor, escalationId);
    if (ack) throw alreadyAcked(escalationId, ack);
    try {
      const result = await this.deps.store.append({
        event_id: `ack.${raised.event_id}`,
        type: "ESCALATION_ACKED",
        garrison_id: raised.garrison_id,
        theater_id: raised.theater_id,
        run_id: raised.run_id,
        order_id: raised.order_id ?? null,
        unit_id: null,
        payload: { escalation_id: raised.event_id, acked_by: actor.userId, channel: actor.channel },
      });
      if (!result.duplicate)
        return {
          ...viewOf(raised, undefined),
          acked: { by: actor.userId, channel: actor.channel, at: result.ts },
        };
    } catch (error) {
      if (!(error instanceof EventIdConflictError)) throw error;
    }
    const stored = (await this.find(actor, escalationId)).ack;
    throw stored
      ? alreadyAcked(escalationId, stored)
      : new ConflictError(`escalation ${escalationId} changed`);
  }

  private async find(actor: Pick<EscalationActor, "userId" | "admin">, escalationId: string) {
    const found = (await this.readAll()).find((e) => e.raised.event_id === escalationId);
    if (!found || !(actor.admin || (await this.ownersOf(found.raised)).includes(actor.userId)))
      throw new NotFoundError("escalation", escalationId);
    return found;
  }

  /** Every escalation with its first acknowledgement, in ledger order. */
  private async readAll(): Promise<Array<{ raised: RecordedEvent; ack: RecordedEvent | undefined }>> {
    const raised: RecordedEvent[] = [];
    const acks = new Map<string, RecordedEvent>();
    for await (const event of this.events(["ESCALATION_RAISED", "ESCALATION_ACKED"])) {
      if (event.type === "ESCALATION_RAISED") raised.push(event);
      const acked = event.payload.escalation_id;
      if (event.type === "ESCALATION_ACKED" && typeof acked === "string" && !acks.has(acked))
        acks.set(acked, event);
    }
    return raised.map((event) => ({ raised: event, ack: acks.get(event.event_id) }));
  }

  /** Events of these types after a position, up to the head seen at the start, a page at a time. */
  private async *events(types: readonly LedgerEventType[], from = 0): AsyncGenerator<RecordedEvent> {
    const head = await this.deps.store.head();
    for (let after = from; after < head; ) {
      const page = await this.deps.store.read({ after, through: head, types, limit: PAGE });
      yield* page;
      if (page.length < PAGE) break;
      after = page.at(-1)?.position ?? head;
    }
  }
}

function viewOf(raised: RecordedEvent, ack: RecordedEvent | undefined): Escalation {
  const text = (value: unknown) => (typeof value === "string" ? value : null);
  return {
    escalation_id: raised.event_id,
    raised_at: raised.ts,
    severity: raised.payload.severity as Escalation["severity"],
    route: text(raised.payload.route),
    reason: text(raised.payload.reason),
    theater_id: raised.theater_id,
    run_id: raised.run_id,
    order_id: raised.order_id ?? null,
    acked: ack ? ackOf(ack) : null,
  };
}

/** An acknowledgement written by another writer may name nobody; it still closes the escalation. */
function ackOf(ack: RecordedEvent): EscalationAck {
  const text = (value: unknown) => (typeof value === "string" ? value : undefined);
  return {
    by: text(ack.payload.acked_by) ?? "someone",
    channel: text(ack.payload.channel) ?? "the ledger",
    at: ack.ts,
  };
}

function alreadyAcked(escalationId: string, ack: RecordedEvent): ConflictError {
  const { by, channel, at } = ackOf(ack);
  return new ConflictError(
    `escalation ${escalationId} was already acknowledged by ${by} from ${channel} at ${at}`,
  );
}
