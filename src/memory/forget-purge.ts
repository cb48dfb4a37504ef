import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";

/**
 * Makes deleted text unrecoverable from the brain database after a forget. SQLite leaves a deleted row's bytes
 * in free space and FTS5 keeps a deleted chunk's terms in older segments until they merge, so deleting rows is
 * not enough: FTS5 is merged into one segment (`optimize`), the file is rebuilt without free pages (`VACUUM`)
 * and the write-ahead log, which holds old page images, is checkpointed and truncated.
 *
 * Its own short-lived connection, so the index store's statements are untouched; the other connections to the
 * file must not be inside a transaction (callers run it between index passes).
 */
export function purgeDeletedText(file: string): { ms: number } {
  const started = performance.now();
  const db = new Database(file);
  try {
    sqliteVec.load(db);
    db.pragma("busy_timeout = 10000");
    db.pragma("secure_delete = ON");
    const fts = db
      .prepare<[], { n: number }>("SELECT count(*) AS n FROM sqlite_schema WHERE name = 'chunks_fts'")
      .get();
    if ((fts?.n ?? 0) > 0) db.exec("INSERT INTO chunks_fts(chunks_fts) VALUES ('optimize')");
    db.exec("VACUUM");
    db.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
  return { ms: Math.round(performance.now() - started) };
}
