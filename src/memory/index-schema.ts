import type Database from "better-sqlite3";
import { ConfigError } from "../core/index.js";

export const SCHEMA_VERSION = 1;

/**
 * The brain index (seed 003 §6): derived from the markdown, so it can always be deleted and rebuilt.
 *
 * - `files`: one row per indexed file with the hash, mtime and size that let a scan skip unchanged files,
 *   and the chunk size it was chunked with (a new size re-chunks it).
 * - `chunks`: the chunks with provenance; `chunks_fts` is an external-content FTS5 index over them kept in step
 *   by triggers, so a chunk row and its FTS entry are written in the same statement.
 * - `embedding_cache`: vectors keyed by (embedder, model, hash of the embedded text); the semantic score of a
 *   lexical-only candidate is computed from it too.
 * - `vector_lists`: centroids of the inverted-file vector index (empty while the index is small enough to scan).
 * - `compactions`: one record per pre-compaction flush (seed 003 §7).
 * - the `vec0` table is created per embedder in `vector-index.ts`, because its dimension is part of its DDL.
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
  embed_hash TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS chunks_by_path ON chunks(path);
CREATE INDEX IF NOT EXISTS chunks_by_embed_hash ON chunks(embed_hash);
CREATE VIRTUAL TABLE IF NOT EXISTS chunks_fts USING fts5(
  content, headings, path,
  content = 'chunks', content_rowid = 'rowid',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS chunks_fts_insert AFTER INSERT ON chunks BEGIN
  INSERT INTO chunks_fts(rowid, content, headings, path) VALUES (new.rowid, new.content, new.heading_text, new.path);
END;
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

/** Creates the tables of a new index, or checks that an existing one has a schema this code can read. */
export function migrateIndex(db: Database.Database, file: string): void {
  db.exec(DDL);
  const row = db.prepare<[], { value: string }>("SELECT value FROM meta WHERE key = 'schema_version'").get();
  if (row === undefined) {
    db.prepare<[string]>("INSERT INTO meta(key, value) VALUES ('schema_version', ?)").run(
      String(SCHEMA_VERSION),
    );
  } else if (Number(row.value) !== SCHEMA_VERSION) {
    throw new ConfigError(file, [
      {
        key: "meta.schema_version",
        rule: `is ${row.value}, this build reads ${SCHEMA_VERSION}; delete the file to rebuild it from the markdown`,
      },
    ]);
  }
}
