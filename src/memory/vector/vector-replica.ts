import type Database from "better-sqlite3";
import { statement } from "../statements.js";
import type { CentroidTable } from "./kmeans.js";
import { vectorFromBlob } from "./vector-blob.js";
import { VectorCodes } from "./vector-codes.js";
import { type ListCentroids, LOG_FLOOR, readMeta } from "./vector-lists.js";
import type { VectorTable } from "./vector-table.js";

/**
 * The in-memory codes of one connection, kept equal to the committed `chunk_vectors`: loaded on first use, then
 * brought forward before each search by replaying `vector_log` (writes by this connection and by others alike).
 * It reloads everything instead when the lists were retrained (a new version), when the log was trimmed past it,
 * when it is far behind, or when the entry it stopped at is gone or names another row: a write it saw inside a
 * transaction that was then rolled back.
 */
export class VectorReplica {
  private codes: VectorCodes | undefined;
  private centroids: CentroidTable | undefined;
  private version: string | undefined;
  /** The last log entry applied, and the rowid it named. */
  private seq = 0;
  private seqRowid = -1;

  constructor(
    private readonly db: Database.Database,
    private readonly table: VectorTable,
    private readonly lists: ListCentroids,
    private readonly dimensions: number,
  ) {}

  /** The codes as of now, and the centroids they are filed by, read in one snapshot. */
  current(): { codes: VectorCodes; centroids: CentroidTable | undefined } {
    return this.db.transaction(() => {
      const { version, table } = this.lists.current();
      const last = this.table.lastSeq();
      const codes = this.codes;
      if (
        !codes ||
        version !== this.version ||
        !this.canReplay() ||
        last - this.seq > codes.size / 4 + 1000
      ) {
        return { codes: this.load(version, table), centroids: table };
      }
      if (last > this.seq) {
        for (const change of this.table.changesSince(this.seq)) {
          if (change.embedding)
            codes.put(change.rowid, clampList(codes, change.list), vectorFromBlob(change.embedding));
          else codes.remove(change.rowid);
          this.seq = change.seq;
          this.seqRowid = change.rowid;
        }
      }
      return { codes, centroids: this.centroids };
    })();
  }

  private canReplay(): boolean {
    const floor = Number(readMeta(this.db, LOG_FLOOR) ?? 0);
    if (this.seq < floor) return false;
    // At the floor the entry itself was trimmed; nothing left to compare.
    if (this.seq === 0 || this.seq === floor) return true;
    return this.loggedRowid(this.seq) === this.seqRowid;
  }

  private load(version: string, centroids: CentroidTable | undefined): VectorCodes {
    const codes = this.codes ?? new VectorCodes(this.dimensions);
    codes.reset(centroids?.count ?? 1);
    for (const row of this.table.rows()) {
      codes.put(Number(row.rowid), clampList(codes, row.list), vectorFromBlob(row.embedding));
    }
    codes.compact();
    this.codes = codes;
    this.centroids = centroids;
    this.version = version;
    this.seq = this.table.lastSeq();
    this.seqRowid = this.loggedRowid(this.seq);
    return codes;
  }

  private loggedRowid(seq: number): number {
    const row = statement<[number], { rowid: number }>(
      this.db,
      "SELECT rowid FROM vector_log WHERE seq = ?",
    ).get(seq);
    return row ? Number(row.rowid) : -1;
  }
}

/** A stored list number, or 0 when it names no current list (rows filed before the lists were dropped). */
function clampList(codes: VectorCodes, list: number | null): number {
  return list !== null && list >= 0 && list < codes.listCount ? list : 0;
}
