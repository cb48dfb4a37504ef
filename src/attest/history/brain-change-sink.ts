import { lstatSync } from "node:fs";
import { setTimeout as sleep } from "node:timers/promises";
import { hashBrainDatabase } from "./brain-database.js";
import {
  type BrainFileChange,
  BrainHistory,
  type HistoryEntry,
  type RedactOutcome,
} from "./brain-history.js";
import type { BrainTree } from "./brain-tree.js";
import type { HistoryRewrite } from "./history-rewrite.js";

/** What the warden knows after a brain changed: whose, why, and what it was told about the change. */
export interface BrainChange {
  userId: string;
  /** "turn <id>", "job <id>", "memory edit in the UI: write memory.md", "soul change approved". */
  cause: string;
  /** The files that changed and their new bytes (null: removed), when the change came through the warden. */
  changes?: readonly BrainFileChange[];
  /** The database's serialized snapshot hash, when the cell reported one. */
  dbSnapshotSha256?: string;
  at?: Date;
}

/** A brain as its cell reports it: the whole markdown tree and the database's serialized snapshot hash. */
export interface ReportedBrain {
  files: BrainTree;
  dbSnapshotSha256: string;
}

/**
 * Asks the user's running cell for its brain; `known` is the tree the history's newest node holds, so files the
 * cell reports unchanged need not cross the channel again. Undefined when the cell could not or would not report
 * it (not running, refused, lied, too large): the reader logs why, and the change goes unrecorded.
 */
export type BrainReader = (userId: string, known: BrainTree) => Promise<ReportedBrain | undefined>;

/** Failures come back as data: a history that could not be written must not fail the turn that changed the brain. */
export type BrainChangeOutcome =
  | { ok: true; entry: HistoryEntry | undefined; skipped?: string }
  | { ok: false; error: string };

/** Called by the warden after each change of a brain; the turn need not wait for it. */
export interface BrainChangeSink {
  brainChanged(change: BrainChange): Promise<BrainChangeOutcome>;
  /** The brain forgot something: every state its history holds loses it too (BrainHistory.redact). */
  brainForgot(
    userId: string,
    rewrite: HistoryRewrite,
    cause: string,
  ): Promise<{ ok: true; outcome: RedactOutcome } | { ok: false; error: string }>;
  /** Resolves once every change handed in so far is recorded: a stopping warden leaves no record half-written. */
  settle(): Promise<void>;
}

/**
 * The sink that records each change in the user's BrainHistory. A brain the host can read as a directory
 * (the bwrap and process backends without images) is read whole, so the node is the brain as it is, whatever
 * the warden was told; a brain the host cannot read (a disk image a cell has mounted) is recorded as its running
 * cell reports it (`readBrain`), or else from the changes the warden passes with a database hash. A record starts `delayMs` after the
 * change that asked for it, so the end of the turn that made the change (its last events, the cell's stream
 * closing) is not held up by reading the brain and running git; changes of one user that arrive meanwhile, or
 * while one is being recorded, wait as one: a user has at most one record running and one waiting.
 */
export function createBrainHistorySink(options: {
  home: string;
  /** The user's brain directory on the host, or undefined when it is not one (an image, another host). */
  brainDirOf: (userId: string) => string | undefined;
  /** A brain that is not a directory here, as its cell reports it (the warden asks over the cell's channel). */
  readBrain?: BrainReader;
  /** How long after a change its record starts (default 0: on the next turn of the event loop). */
  delayMs?: number;
}): BrainChangeSink {
  // A user is in the map while a record of theirs is due or runs; `waiting` is what it will record next.
  const users = new Map<string, { waiting?: Waiting }>();
  const inFlight = new Set<Promise<unknown>>();
  const track = <T>(promise: Promise<T>): Promise<T> => {
    inFlight.add(promise);
    void promise.finally(() => inFlight.delete(promise));
    return promise;
  };

  const recordOne = async (change: BrainChange): Promise<BrainChangeOutcome> => {
    try {
      const history = BrainHistory.open(options.home, change.userId);
      const dir = options.brainDirOf(change.userId);
      const { cause, at } = change;
      if (dir !== undefined && lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
        const db = change.dbSnapshotSha256 ?? (await hashBrainDatabase(dir));
        return { ok: true, entry: await history.record({ cause, brainDir: dir, dbSnapshotSha256: db, at }) };
      }
      if (options.readBrain) {
        const head = history.head();
        const known = head === undefined ? new Map<string, Buffer>() : await history.treeOf(head);
        const reported = await options.readBrain(change.userId, known);
        if (reported === undefined)
          return { ok: true, entry: undefined, skipped: "the brain's cell did not report its state" };
        const { files: tree, dbSnapshotSha256 } = reported;
        return { ok: true, entry: await history.record({ cause, tree, dbSnapshotSha256, at }) };
      }
      if (change.changes === undefined || change.dbSnapshotSha256 === undefined)
        return {
          ok: true,
          entry: undefined,
          skipped: "the brain is not a directory here and came without its files and database hash",
        };
      const { changes, dbSnapshotSha256 } = change;
      return { ok: true, entry: await history.record({ cause, changes, dbSnapshotSha256, at }) };
    } catch (error) {
      return { ok: false, error: (error as Error).message };
    }
  };

  return {
    brainChanged(change) {
      const state = users.get(change.userId);
      if (!state) {
        const waiting = merge(undefined, change);
        users.set(change.userId, { waiting });
        void track(sleep(options.delayMs ?? 0).then(() => next(change.userId)));
        return waiting.outcome;
      }
      state.waiting = merge(state.waiting, change);
      return state.waiting.outcome;
    },
    brainForgot(userId, rewrite, cause) {
      // Runs now, not after the delay: the words should leave the history as soon as they left the brain. A
      // record running meanwhile waits on the history's lock, whichever comes first.
      const redaction = Promise.resolve()
        .then(() => BrainHistory.open(options.home, userId).redact(rewrite, cause))
        .then(
          (outcome) => ({ ok: true as const, outcome }),
          (error: unknown) => ({ ok: false as const, error: (error as Error).message }),
        );
      return track(redaction);
    },
    async settle() {
      // A record that ends may start the one waiting behind it: wait until none is left.
      while (inFlight.size > 0) await Promise.allSettled([...inFlight]);
    },
  };

  function next(userId: string): void {
    const state = users.get(userId);
    const waiting = state?.waiting;
    if (!state || !waiting) {
      users.delete(userId);
      return;
    }
    state.waiting = undefined;
    void track(
      recordOne(waiting.change)
        .then(waiting.settle)
        .finally(() => next(userId)),
    );
  }
}

interface Waiting {
  change: BrainChange;
  outcome: Promise<BrainChangeOutcome>;
  settle: (outcome: BrainChangeOutcome) => void;
}

/** Changes waiting together: causes joined, file changes in order, the latest database hash and time. */
function merge(waiting: Waiting | undefined, change: BrainChange): Waiting {
  if (!waiting) {
    let settle: (outcome: BrainChangeOutcome) => void = () => {};
    const outcome = new Promise<BrainChangeOutcome>((resolve) => {
      settle = resolve;
    });
    return { change, outcome, settle };
  }
  const before = waiting.change;
  const changes = before.changes && change.changes ? [...before.changes, ...change.changes] : undefined;
  const db = change.dbSnapshotSha256 ?? before.dbSnapshotSha256;
  const at = change.at ?? before.at;
  waiting.change = {
    userId: change.userId,
    cause: `${before.cause}; ${change.cause}`,
    ...(changes ? { changes } : {}),
    ...(db ? { dbSnapshotSha256: db } : {}),
    ...(at ? { at } : {}),
  };
  return waiting;
}
