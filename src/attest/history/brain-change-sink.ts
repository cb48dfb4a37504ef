import { lstatSync } from "node:fs";
import { hashBrainDatabase } from "./brain-database.js";
import { type BrainFileChange, BrainHistory, type HistoryEntry } from "./brain-history.js";

/** What the warden knows after a brain changed: whose, why, and what it was told about the change. */
export interface BrainChange {
  userId: string;
  /** "turn <id>", "file op write memory.md", "compaction", "memory edit in the UI", "soul change approved". */
  cause: string;
  /** The files that changed and their new bytes (null: removed), when the change came through the warden. */
  changes?: readonly BrainFileChange[];
  /** The database's serialized snapshot hash, when the cell reported one. */
  dbSnapshotSha256?: string;
  at?: Date;
}

/** Failures come back as data: a history that could not be written must not fail the turn that changed the brain. */
export type BrainChangeOutcome =
  | { ok: true; entry: HistoryEntry | undefined; skipped?: string }
  | { ok: false; error: string };

/** Called by the warden after each change of a brain. */
export interface BrainChangeSink {
  brainChanged(change: BrainChange): Promise<BrainChangeOutcome>;
}

/**
 * The sink that records each change in the user's BrainHistory. A brain the host can read as a directory
 * (the bwrap and process backends without images) is read whole, so the node is the brain as it is, whatever
 * the warden was told; a brain the host cannot read (a disk image a cell has mounted) is recorded from the
 * changes the warden passes, when it passes them with a database hash.
 */
export function createBrainHistorySink(options: {
  home: string;
  /** The user's brain directory on the host, or undefined when it is not one (an image, another host). */
  brainDirOf: (userId: string) => string | undefined;
}): BrainChangeSink {
  return {
    async brainChanged(change) {
      try {
        const history = BrainHistory.open(options.home, change.userId);
        const dir = options.brainDirOf(change.userId);
        if (dir !== undefined && lstatSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
          const db = change.dbSnapshotSha256 ?? hashBrainDatabase(dir);
          const entry = await history.record({
            cause: change.cause,
            brainDir: dir,
            dbSnapshotSha256: db,
            at: change.at,
          });
          return { ok: true, entry };
        }
        if (change.changes === undefined || change.dbSnapshotSha256 === undefined)
          return {
            ok: true,
            entry: undefined,
            skipped:
              "the brain is not a directory on this host and the change came without its files and database hash",
          };
        const entry = await history.record({
          cause: change.cause,
          changes: change.changes,
          dbSnapshotSha256: change.dbSnapshotSha256,
          at: change.at,
        });
        return { ok: true, entry };
      } catch (error) {
        return { ok: false, error: (error as Error).message };
      }
    },
  };
}
