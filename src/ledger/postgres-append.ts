import type pg from "pg";
import { type AppendPlan, planAppend } from "./append-plan.js";
import type { PreparedEvent } from "./event-input.js";
import type { StreamExpectation } from "./event-store.js";
import type { PostgresNames } from "./postgres-schema.js";
import { parseState, readStateStatement, writeStatement } from "./postgres-statements.js";
import { inLedgerTransaction, isRetryableByTransaction } from "./postgres-transaction.js";
import { namedIds, SnapshotSet } from "./projection.js";
import { type EncodedSnapshots, encodeSnapshots, type SnapshotCaches } from "./snapshot-cache.js";

/**
 * Appends to the PostgreSQL ledger, in one of two ways.
 *
 * The careful way is a transaction of four round trips: BEGIN and the lock; a read of the head, of the
 * snapshots the batch touches and of stored copies of its event_ids; the write; COMMIT.
 *
 * A store that made the last append itself already knows what that read would say: the head it left, and the
 * snapshots it wrote (cached with their text). It plans against that and sends the batch as one statement that
 * takes the lock and commits on its own: one round trip. What it took for granted, the database checks: a
 * position is a primary key, so if anyone appended after the head this store knows, the batch's first
 * position is taken and the statement fails; an event_id stored before fails its unique index, and so does a
 * run or order the batch creates that exists already. Then nothing was written, and the append goes the
 * careful way, which decides it for good. A refusal (a transition, a stale expected version) is also left to
 * the careful way, so that it is decided against what is stored.
 */
export class PostgresAppender {
  /** The head of this store's last append; undefined until the careful way has read one. */
  private knownHead: number | undefined;
  /** Appends since this head were all this store's: cached snapshots seen since then are the stored ones. */
  private ownSince = 0;

  constructor(
    private readonly pool: pg.Pool,
    private readonly names: PostgresNames,
    private readonly caches: SnapshotCaches,
  ) {}

  async append(prepared: PreparedEvent[], expect: readonly StreamExpectation[]): Promise<AppendPlan> {
    const quick = this.planFromCache(prepared, expect);
    if (quick) {
      const { plan, last, upserts, inserts } = quick;
      try {
        await this.pool.query(
          writeStatement(this.names, { events: plan.fresh, upserts, inserts, head: last }),
        );
        this.caches.rememberAll(upserts, last);
        this.caches.rememberAll(inserts, last);
        this.knownHead = last;
        return plan;
      } catch (error) {
        if (!isRetryableByTransaction(error)) throw error;
      }
    }
    return this.appendCarefully(prepared, expect);
  }

  /** Forget what this store knows of the stored state: after a rebuild, which rewrites every snapshot. */
  forget(): void {
    this.knownHead = undefined;
    this.caches.clear();
  }

  private planFromCache(prepared: PreparedEvent[], expect: readonly StreamExpectation[]) {
    if (this.knownHead === undefined) return undefined;
    const { runIds, orderIds } = namedIds(
      prepared.map((p) => p.event),
      expect,
    );
    const set = new SnapshotSet();
    for (const id of runIds) {
      const run = this.caches.runs.seenSince(id, this.ownSince);
      if (run) set.runs.set(id, run);
      else if (!createdHere(prepared, "run", id)) return undefined;
    }
    for (const id of orderIds) {
      const order = this.caches.orders.seenSince(id, this.ownSince);
      if (order) set.orders.set(id, order);
      else if (!createdHere(prepared, "order", id)) return undefined;
    }
    const known = { runs: new Set(set.runs.keys()), orders: new Set(set.orders.keys()) };
    let plan: AppendPlan;
    try {
      plan = planAppend({ prepared, head: this.knownHead, stored: new Map(), snapshots: set, expect });
    } catch {
      return undefined;
    }
    const last = plan.fresh.at(-1)?.position;
    if (last === undefined) return undefined;
    const changed = encodeSnapshots(set, "changed");
    const upserts: EncodedSnapshots = {
      runs: changed.runs.filter((r) => known.runs.has(r.snapshot.run_id)),
      orders: changed.orders.filter((o) => known.orders.has(o.snapshot.order_id)),
    };
    const inserts: EncodedSnapshots = {
      runs: changed.runs.filter((r) => !known.runs.has(r.snapshot.run_id)),
      orders: changed.orders.filter((o) => !known.orders.has(o.snapshot.order_id)),
    };
    return { plan, last, upserts, inserts };
  }

  private async appendCarefully(
    prepared: PreparedEvent[],
    expect: readonly StreamExpectation[],
  ): Promise<AppendPlan> {
    const { runIds, orderIds } = namedIds(
      prepared.map((p) => p.event),
      expect,
    );
    const eventIds = prepared.filter((p) => p.givenId).map((p) => p.event.event_id);
    const { plan, written, read, head } = await inLedgerTransaction(this.pool, this.names, async (client) => {
      const statement = readStateStatement(this.names, { runIds, orderIds, eventIds });
      const state = parseState((await client.query(statement)).rows, this.caches);
      const plan = planAppend({ prepared, ...state, expect });
      const written = encodeSnapshots(state.snapshots, "changed");
      const last = plan.fresh.at(-1)?.position;
      if (last !== undefined)
        await client.query(writeStatement(this.names, { events: plan.fresh, upserts: written, head: last }));
      return { plan, written, read: state.head, head: last ?? state.head };
    });
    // What this transaction read is the stored state at the head it read, and everything after is its own
    // writes; a snapshot cached from before may be stale.
    this.ownSince = read;
    this.caches.rememberAll(written, head);
    this.knownHead = head;
    return plan;
  }
}

/** The first event of the batch that names the stream creates it, so the batch takes it to be new. */
function createdHere(prepared: readonly PreparedEvent[], kind: "run" | "order", id: string): boolean {
  const first = prepared.find((p) => (kind === "run" ? p.event.run_id : p.event.order_id) === id);
  return first?.event.type === (kind === "run" ? "RUN_CREATED" : "ORDER_CREATED");
}
