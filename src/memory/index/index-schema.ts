import type Database from "better-sqlite3";
import { ConfigError } from "../../core/index.js";

export const SCHEMA_VERSION = 3;

/**
 * The brain index (seed 003 §6): derived from the markdown, so it can always be deleted and rebuilt.
 *
 * - `files`: one row per indexed file with the hash, mtime and size that let a scan skip unchanged files,
 *   and the chunk size it was chunked with (a new size re-chunks it).
 * - `chunks`: the chunks with provenance; `chunks_fts` is an external-content FTS5 index over them. The writer
 *   adds a chunk's entry in the transaction that inserts it (`PendingLexical` in file-writes.ts: an insert
 *   trigger made FTS5 write a segment per chunk); triggers remove and replace entries, so no delete or update
 *   can leave one behind.
 * - `embedding_cache`: vectors keyed by (embedder, model, hash of the embedded text) that no live chunk of the
 *   index's embedder holds: those of an embedder the index switched away from, or kept across a rebuild. The
 *   index's own vectors are found in `chunk_vectors` (see embedding-cache.ts). Indexes written before keep a
 *   copy of their live vectors here too, which is harmless and goes as their chunks go.
 * - `vector_lists`: centroids of the inverted-file vector index (empty while the index is small enough to scan).
 * - `compactions`: one record per pre-compaction flush (seed 003 §7).
 * - the vector tables (`chunk_vectors`, `vector_log`) are created in `vector-table.ts`, which owns their SQL.
 * - version 2 adds `chunks_cjk` and `paths_fts` (see `CJK_AIDS`, `PATH_AIDS`); version 3 marks chunks with CJK text in
 *   `chunks.cjk`, and the writer adds full-text entries instead of insert triggers (see `upgradeToV3`).
 */
const DDL = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS files (
  path TEXT PRIMARY KEY,
  hash TEXT NOT NULL,
  mtime_ms INTEGER NOT NULL,
  size INTEGER NOT NULL,
  chunk_max_bytes INTEGER NOT NULL,
  chunk_count INTEGER NOT NULL,
  indexed_at TEXT NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS chunks (
  rowid INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  path TEXT NOT NULL,
  headings TEXT NOT NULL,
  heading_text TEXT NOT NULL,
  ordinal INTEGER NOT NULL,
  start_line INTEGER NOT NULL,
  end_line INTEGER NOT NULL,
  content TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  embed_hash TEXT NOT NULL,
  cjk INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX IF NOT EXISTS chunks_by_path ON chunks(path);
CREATE INDEX IF NOT EXISTS chunks_by_embed_hash ON chunks(embed_hash);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
  content, headings, path,
  content = 'chunks', content_rowid = 'rowid',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS chunks_fts_delete AFTER DELETE ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, content, headings, path)
    VALUES ('delete', old.rowid, old.content, old.heading_text, old.path);
END;
CREATE TRIGGER IF NOT EXISTS chunks_fts_update AFTER UPDATE OF content, heading_text, path ON chunks BEGIN
  INSERT INTO chunks_fts(chunks_fts, rowid, content, headings, path)
    VALUES ('delete', old.rowid, old.content, old.heading_text, old.path);
  INSERT INTO chunks_fts(rowid, content, headings, path) VALUES (new.rowid, new.content, new.heading_text, new.path);
END;
CREATE TABLE IF NOT EXISTS embedding_cache (
  embedder TEXT NOT NULL,
  model TEXT NOT NULL,
  content_hash TEXT NOT NULL,
  vector BLOB NOT NULL,
  PRIMARY KEY (embedder, model, content_hash)
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS vector_lists (list INTEGER PRIMARY KEY, centroid BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS compactions (
  id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  session_id TEXT NOT NULL,
  first_message TEXT NOT NULL,
  last_message TEXT NOT NULL,
  message_count INTEGER NOT NULL,
  token_count INTEGER NOT NULL,
  summary_hash TEXT NOT NULL,
  affected_docs TEXT NOT NULL
) WITHOUT ROWID;
`;

/** Han, kana, CJK punctuation (U+2E80–U+9FFF), Hangul syllables, half-width katakana: SQLite GLOB ranges. */
const CJK_GLOB = "'*[⺀-鿿가-힯ｦ-ﾟ]*'";

/** The same ranges as `CJK_GLOB`, for the writer that sets `chunks.cjk`. */
const CJK_CHAR = /[\u2E80-\u9FFF\uAC00-\uD7AF\uFF66-\uFF9F]/u;

/** `chunks.cjk` of a chunk with this content and heading text: 1 when either holds CJK text. */
export function cjkMark(content: string, headingText: string): 0 | 1 {
  return CJK_CHAR.test(content) || CJK_CHAR.test(headingText) ? 1 : 0;
}

/**
 * Search aids beside `chunks_fts`, both derived from the tables above:
 * - `chunks_cjk`: unicode61 makes a whole run of CJK text one token, so "東京" never matches "東京に行った";
 *   chunks with CJK text are also indexed by FTS5's trigram tokenizer, which matches any run of three or more
 *   characters. Only those chunks: the view it reads from and the triggers all test `chunks.cjk`, because an
 *   external-content index must be told to delete exactly what it was given. The writer sets the mark
 *   (`cjkMark`); SQLite's GLOB over the ranges cost 70 µs a chunk, a seventh of indexing one.
 * - `file_paths` + `paths_fts`: every indexed file's path, trigram-indexed, so a query that names a file
 *   (`knee-rehab.md`, `logs/2025-03-02`) finds it by any part of its name. `files` is written with INSERT OR
 *   REPLACE, which fires no delete trigger, so the insert trigger is idempotent.
 */
const CJK_AIDS = `
CREATE VIEW IF NOT EXISTS chunks_cjk_source AS
  SELECT rowid, content, heading_text AS headings FROM chunks WHERE cjk;
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_cjk USING fts5(
  content, headings, content = 'chunks_cjk_source', content_rowid = 'rowid', tokenize = 'trigram'
);
CREATE TRIGGER IF NOT EXISTS chunks_cjk_delete AFTER DELETE ON chunks WHEN old.cjk BEGIN
  INSERT INTO chunks_cjk(chunks_cjk, rowid, content, headings)
    VALUES ('delete', old.rowid, old.content, old.heading_text);
END;
CREATE TRIGGER IF NOT EXISTS chunks_cjk_update_old AFTER UPDATE OF content, heading_text, cjk ON chunks
  WHEN old.cjk BEGIN
  INSERT INTO chunks_cjk(chunks_cjk, rowid, content, headings)
    VALUES ('delete', old.rowid, old.content, old.heading_text);
END;
CREATE TRIGGER IF NOT EXISTS chunks_cjk_update_new AFTER UPDATE OF content, heading_text, cjk ON chunks
  WHEN new.cjk BEGIN
  INSERT INTO chunks_cjk(rowid, content, headings) VALUES (new.rowid, new.content, new.heading_text);
END;
`;

const PATH_AIDS = `
CREATE TABLE IF NOT EXISTS file_paths (rowid INTEGER PRIMARY KEY, path TEXT NOT NULL UNIQUE);
CREATE VIRTUAL TABLE IF NOT EXISTS paths_fts USING fts5(
  path, content = 'file_paths', content_rowid = 'rowid', tokenize = 'trigram'
);
CREATE TRIGGER IF NOT EXISTS files_path_insert AFTER INSERT ON files BEGIN
  INSERT OR IGNORE INTO file_paths(path) VALUES (new.path);
END;
CREATE TRIGGER IF NOT EXISTS files_path_delete AFTER DELETE ON files BEGIN
  DELETE FROM file_paths WHERE path = old.path;
END;
CREATE TRIGGER IF NOT EXISTS file_paths_insert AFTER INSERT ON file_paths BEGIN
  INSERT INTO paths_fts(rowid, path) VALUES (new.rowid, new.path);
END;
CREATE TRIGGER IF NOT EXISTS file_paths_delete AFTER DELETE ON file_paths BEGIN
  INSERT INTO paths_fts(paths_fts, rowid, path) VALUES ('delete', old.rowid, old.path);
END;
`;

/**
 * An index from before version 3 lacks `chunks.cjk`: it is added and set by the GLOB test the version 2
 * triggers used, so it marks exactly the chunks `chunks_cjk` holds.
 */
function addCjkMark(db: Database.Database): void {
  const columns = db.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('chunks')").all();
  if (columns.some((c) => c.name === "cjk")) return;
  db.exec("ALTER TABLE chunks ADD COLUMN cjk INTEGER NOT NULL DEFAULT 0");
  db.exec(`UPDATE chunks SET cjk = 1 WHERE content GLOB ${CJK_GLOB} OR heading_text GLOB ${CJK_GLOB}`);
}

/** Version 1 → 3: the CJK mark, no insert trigger, and the search aids, filled from what the index already holds, in one transaction. */
function addSearchAids(db: Database.Database): void {
  db.transaction(() => {
    addCjkMark(db);
    db.exec("DROP TRIGGER IF EXISTS chunks_fts_insert");
    db.exec(CJK_AIDS + PATH_AIDS);
    db.exec("INSERT INTO chunks_cjk(chunks_cjk) VALUES ('rebuild')");
    db.exec("INSERT OR IGNORE INTO file_paths(path) SELECT path FROM files");
    setSchemaVersion(db);
  }).immediate();
}

/**
 * Version 2 → 3: the CJK mark, the trigram index's view and triggers made to read it, and no insert triggers;
 * no full-text entry changes.
 */
function upgradeToV3(db: Database.Database): void {
  db.transaction(() => {
    addCjkMark(db);
    db.exec(
      "DROP TRIGGER IF EXISTS chunks_fts_insert; DROP TRIGGER IF EXISTS chunks_cjk_insert; " +
        "DROP TRIGGER IF EXISTS chunks_cjk_delete; " +
        "DROP TRIGGER IF EXISTS chunks_cjk_update_old; DROP TRIGGER IF EXISTS chunks_cjk_update_new; " +
        "DROP VIEW IF EXISTS chunks_cjk_source",
    );
    db.exec(CJK_AIDS);
    setSchemaVersion(db);
  }).immediate();
}

function setSchemaVersion(db: Database.Database): void {
  db.prepare("UPDATE meta SET value = ? WHERE key = 'schema_version'").run(String(SCHEMA_VERSION));
}

/**
 * The number of chunks, kept in `meta` by triggers in the same statement that adds or deletes a chunk, so any
 * connection reads it in O(1): `count(*)` walks a whole index (at a million chunks 301 ms cold, 8 ms warm),
 * and the indexer and the word index's IDF need the number after every write. An index made before it is
 * counted once, under the write lock, so no chunk written meanwhile is missed or counted twice.
 */
const CHUNK_COUNT = `
CREATE TRIGGER IF NOT EXISTS chunks_count_insert AFTER INSERT ON chunks BEGIN
  UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'chunk_count';
END;
CREATE TRIGGER IF NOT EXISTS chunks_count_delete AFTER DELETE ON chunks BEGIN
  UPDATE meta SET value = CAST(value AS INTEGER) - 1 WHERE key = 'chunk_count';
END;
`;

/** The chunk count `CHUNK_COUNT` keeps: one row read. */
export const CHUNK_COUNT_SQL = "SELECT CAST(value AS INTEGER) AS n FROM meta WHERE key = 'chunk_count'";

function countChunks(db: Database.Database): void {
  if (db.prepare(CHUNK_COUNT_SQL).get() !== undefined) return;
  db.transaction(() => {
    db.exec(CHUNK_COUNT);
    db.exec("INSERT OR IGNORE INTO meta(key, value) SELECT 'chunk_count', count(*) FROM chunks");
  }).immediate();
}

/** Creates the tables of a new index, or checks that an existing one has a schema this code can read. */
export function migrateIndex(db: Database.Database, file: string): void {
  db.exec(DDL);
  countChunks(db);
  const row = db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'schema_version'").get();
  if (row === undefined) {
    addCjkMark(db);
    db.exec("DROP TRIGGER IF EXISTS chunks_fts_insert");
    db.exec(CJK_AIDS + PATH_AIDS);
    db.prepare<[string]>("INSERT OR IGNORE INTO meta(key, value) VALUES ('schema_version', ?)").run(
      String(SCHEMA_VERSION),
    );
  } else if (Number(row.value) === 1) {
    addSearchAids(db);
  } else if (Number(row.value) === 2) {
    upgradeToV3(db);
  } else if (Number(row.value) !== SCHEMA_VERSION) {
    throw new ConfigError(file, [
      {
        key: "meta.schema_version",
        rule: `is ${row.value}, this build reads ${SCHEMA_VERSION}; delete the file to rebuild it from the markdown`,
      },
    ]);
  }
}
