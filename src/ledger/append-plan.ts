import { EventIdConflictError, StreamVersionConflictError } from "./errors.js";
import { isSameEvent, type PreparedEvent } from "./event-input.js";
import type { RecordedEvent, StreamExpectation } from "./event-store.js";
import type { SnapshotSet } from "./projection.js";
import type { AppendResult } from "./snapshot.js";

export interface AppendPlan {
  /** One result per input event, in input order. */
  results: AppendResult[];
  /** The events to insert, positions assigned from head + 1 without gaps. */
  fresh: RecordedEvent[];
}

/** What a store has read inside its append transaction, before anything is written. */
export interface PlanInput {
  prepared: readonly PreparedEvent[];
  /** The highest stored position. */
  head: number;
  /** Earlier copies of the event_ids the writer chose. */
  stored: ReadonlyMap<string, RecordedEvent>;
  /** The snapshots of every run and order the batch names or expects; updated in place. */
  snapshots: SnapshotSet;
  expect: readonly StreamExpectation[];
}

/**
 * Decides, inside the append transaction, what a batch does: which events are retries of stored ones, which
 * are new and at which positions, and what the projections become. Shared by both stores so that they agree
 * on every rule; throws (and the store rolls back) on a conflicting event_id, a stale expected version or an
 * illegal transition.
 */
export function planAppend(input: PlanInput): AppendPlan {
  // First pass: recognise retries before anything else, so that a batch that was stored whole before succeeds
  // again unchanged even though its expected version has since moved on (by this very batch).
  const copies = classify(input.prepared, input.stored);
  if (copies.includes(undefined)) checkExpectations(input.expect, input.snapshots);

  const fresh: RecordedEvent[] = [];
  const recorded: RecordedEvent[] = [];
  input.prepared.forEach((p, index) => {
    const copy = copies[index];
    if (copy === undefined) {
      const event: RecordedEvent = { ...p.event, position: input.head + fresh.length + 1 };
      input.snapshots.apply(event);
      fresh.push(event);
      recorded[index] = event;
    } else {
      recorded[index] = typeof copy === "number" ? (recorded[copy] as RecordedEvent) : copy;
    }
  });
  const results = recorded.map((e, index) => ({
    event_id: e.event_id,
    ts: e.ts,
    duplicate: copies[index] !== undefined,
    position: e.position,
  }));
  return { results, fresh };
}

/**
 * For each event: its stored copy, the index of an earlier copy in the same batch, or undefined when it is new.
 * A copy with a different body is a conflict.
 */
function classify(
  prepared: readonly PreparedEvent[],
  stored: ReadonlyMap<string, RecordedEvent>,
): Array<RecordedEvent | number | undefined> {
  const firstIndex = new Map<string, number>();
  return prepared.map((p, index) => {
    if (!p.givenId) return undefined;
    const id = p.event.event_id;
    const copy = stored.get(id);
    if (copy) {
      if (!isSameEvent(copy, p)) throw new EventIdConflictError(id, copy.position);
      return copy;
    }
    const first = firstIndex.get(id);
    if (first === undefined) {
      firstIndex.set(id, index);
      return undefined;
    }
    const original = prepared[first];
    if (original && !isSameEvent(original.event, p)) throw new EventIdConflictError(id, null);
    return first;
  });
}

function checkExpectations(expect: readonly StreamExpectation[], snapshots: SnapshotSet): void {
  for (const e of expect) {
    const snapshot = e.kind === "run" ? snapshots.runs.get(e.id) : snapshots.orders.get(e.id);
    const actual = snapshot?.version ?? 0;
    if (actual !== e.version) throw new StreamVersionConflictError(e, e.version, actual);
  }
}
