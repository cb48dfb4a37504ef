import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";

/**
 * Makes deleted text unrecoverable from the brain database after a forget. SQLite leaves a deleted row's bytes
 * in free space and FTS5 keeps a deleted chunk's terms in older segments until they merge, so deleting rows is
 * not enough: each FTS5 index is merged into one segment (`optimize`), the file is rebuilt without free pages (`VACUUM`)
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
    // Every full-text index: the words, the CJK trigrams and the file paths (a forget can empty a file).
    const tables = db
      .prepare<[], string>(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%USING fts5%'",
      )
      .pluck()
      .all();
    for (const table of tables) db.exec(`INSERT INTO "${table}"("${table}") VALUES ('optimize')`);
    db.exec("VACUUM");
    db.pragma("wal_checkpoint(TRUNCATE)");
  } finally {
    db.close();
  }
  return { ms: Math.round(performance.now() - started) };
}
