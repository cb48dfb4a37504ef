import type Database from "better-sqlite3";
import { statement } from "../statements.js";
import { vectorBlob, vectorFromBlob } from "./vector-blob.js";

/** One stored vector: its chunk's rowid, the list it is filed in, its float32 bytes. */
export interface VectorRow {
  rowid: number;
  list: number;
  embedding: Buffer;
}

/** A vector written or removed since `seq`; `embedding` is null when the row is gone now. */
export interface VectorChange {
  seq: number;
  rowid: number;
  list: number | null;
  embedding: Buffer | null;
}

/**
 * The vector leg's tables, the source of truth that the in-memory codes are rebuilt from.
 *
 * - `chunk_vectors`: one float32 vector per chunk, and the list (k-means cell) it is filed in. A plain rowid
 *   table: earlier versions used a sqlite-vec `vec0` table of this name, which costs ~60 µs to read one row
 *   back and ~15 µs a row to read them all; such a table is converted when found.
 * - `vector_log`: every write to `chunk_vectors`, numbered, filled by triggers so no writer can forget it. A
 *   connection whose codes are at `seq` replays the rows logged after it; the list rewrite of a retraining is not
 *   logged, it changes `vector_lists_version` instead, which makes every connection reload.
 */
const TABLE_DDL =
  "CREATE TABLE IF NOT EXISTS chunk_vectors (rowid INTEGER PRIMARY KEY, list INTEGER NOT NULL, embedding BLOB NOT NULL)";
const LOG_DDL = `
CREATE TABLE IF NOT EXISTS vector_log (seq INTEGER PRIMARY KEY AUTOINCREMENT, rowid INTEGER NOT NULL);
CREATE TRIGGER IF NOT EXISTS chunk_vectors_insert_logged AFTER INSERT ON chunk_vectors BEGIN
  INSERT INTO vector_log(rowid) VALUES (new.rowid);
END;
CREATE TRIGGER IF NOT EXISTS chunk_vectors_delete_logged AFTER DELETE ON chunk_vectors BEGIN
  INSERT INTO vector_log(rowid) VALUES (old.rowid);
END;
CREATE TRIGGER IF NOT EXISTS chunk_vectors_update_logged AFTER UPDATE OF embedding ON chunk_vectors BEGIN
  INSERT INTO vector_log(rowid) VALUES (new.rowid);
END;
`;
const NAMES = [
  "chunk_vectors",
  "vector_log",
  "chunk_vectors_insert_logged",
  "chunk_vectors_delete_logged",
  "chunk_vectors_update_logged",
];

export class VectorTable {
  constructor(private readonly db: Database.Database) {}

  /**
   * Creates the tables, converting an earlier version's `vec0` table; returns whether it changed anything. Reads
   * first, so on a current database it never asks for the write lock (a search may be the caller).
   */
  static ensure(db: Database.Database): boolean {
    const rows = db
      .prepare<[], { name: string; sql: string | null }>(
        "SELECT name, sql FROM sqlite_master WHERE name LIKE 'chunk_vectors%' OR name = 'vector_log'",
      )
      .all();
    const sqlOf = new Map(rows.map((r) => [r.name, r.sql ?? ""]));
    const legacy = /using\s+vec0/i.test(sqlOf.get("chunk_vectors") ?? "");
    if (!legacy && NAMES.every((name) => sqlOf.has(name))) return false;
    db.transaction(() => {
      if (legacy) {
        db.exec(TABLE_DDL.replace("chunk_vectors", "chunk_vectors_converted"));
        db.exec(
          "INSERT INTO chunk_vectors_converted(rowid, list, embedding) SELECT rowid, 0, embedding FROM chunk_vectors",
        );
        db.exec("DROP TABLE chunk_vectors; ALTER TABLE chunk_vectors_converted RENAME TO chunk_vectors;");
        // Its lists were vec0 partitions: the vectors start in one list and the next rebalance trains new ones.
        db.exec("DELETE FROM vector_lists; DELETE FROM meta WHERE key LIKE 'vector_lists_%';");
        db.exec("INSERT INTO meta(key, value) VALUES ('vector_lists_version', lower(hex(randomblob(16))))");
      }
      db.exec(TABLE_DDL);
      db.exec(LOG_DDL);
    }).immediate();
    return true;
  }

  static drop(db: Database.Database): void {
    db.exec("DROP TABLE IF EXISTS chunk_vectors; DROP TABLE IF EXISTS vector_log; DELETE FROM vector_lists;");
  }

  insert(rowid: number, list: number, vector: Float32Array): void {
    statement<[bigint, number, Buffer]>(
      this.db,
      "INSERT OR REPLACE INTO chunk_vectors(rowid, list, embedding) VALUES (?, ?, ?)",
    ).run(BigInt(rowid), list, vectorBlob(vector));
  }

  delete(rowid: number): void {
    statement<[bigint]>(this.db, "DELETE FROM chunk_vectors WHERE rowid = ?").run(BigInt(rowid));
  }

  count(): number {
    return statement<[], { n: number }>(this.db, "SELECT count(*) AS n FROM chunk_vectors").get()?.n ?? 0;
  }

  /** The smallest and largest rowid (both 0 for an empty table): two lookups at the ends of the b-tree. */
  rowidRange(): { low: number; high: number } {
    const row = statement<[], { low: number | null; high: number | null }>(
      this.db,
      "SELECT (SELECT min(rowid) FROM chunk_vectors) AS low, (SELECT max(rowid) FROM chunk_vectors) AS high",
    ).get();
    return { low: Number(row?.low ?? 0), high: Number(row?.high ?? 0) };
  }

  /** Every row, in rowid order, one at a time: the table may not fit in memory as floats. */
  *rows(): IterableIterator<VectorRow> {
    yield* statement<[], VectorRow>(this.db, "SELECT rowid, list, embedding FROM chunk_vectors").iterate();
  }

  /** The stored floats of some rows (missing rows are left out). */
  vectors(rowids: readonly number[]): Map<number, Float32Array> {
    const one = statement<[number], { embedding: Buffer }>(
      this.db,
      "SELECT embedding FROM chunk_vectors WHERE rowid = ?",
    );
    const out = new Map<number, Float32Array>();
    for (const rowid of rowids) {
      const row = one.get(rowid);
      if (row) out.set(rowid, vectorFromBlob(row.embedding));
    }
    return out;
  }

  /** The exact `k` nearest rows by L2 distance, computed by sqlite-vec over every stored vector. */
  nearest(query: Float32Array, k: number): Array<{ rowid: number; distance: number }> {
    return statement<[Buffer, number], { rowid: number; distance: number }>(
      this.db,
      "SELECT rowid, vec_distance_l2(embedding, ?) AS distance FROM chunk_vectors ORDER BY distance LIMIT ?",
    ).all(vectorBlob(query), k);
  }

  setList(rowid: number, list: number): void {
    statement<[number, number]>(this.db, "UPDATE chunk_vectors SET list = ? WHERE rowid = ?").run(
      list,
      rowid,
    );
  }

  /** The number of the last logged write (0 for none), kept by SQLite even when the log has been trimmed. */
  lastSeq(): number {
    return (
      statement<[], { seq: number }>(
        this.db,
        "SELECT seq FROM sqlite_sequence WHERE name = 'vector_log'",
      ).get()?.seq ?? 0
    );
  }

  /** Writes logged after `seq`, each with the row as it is now. */
  changesSince(seq: number): VectorChange[] {
    return statement<[number], VectorChange>(
      this.db,
      "SELECT l.seq, l.rowid, r.list, r.embedding FROM vector_log l LEFT JOIN chunk_vectors r ON r.rowid = l.rowid " +
        "WHERE l.seq > ? ORDER BY l.seq",
    ).all(seq);
  }

  /** Forgets log entries up to `seq`: connections behind it reload instead of replaying. */
  trimLog(seq: number): void {
    statement<[number]>(this.db, "DELETE FROM vector_log WHERE seq <= ?").run(seq);
  }
}
