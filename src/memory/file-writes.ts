import type Database from "better-sqlite3";
import { IronclawError } from "../core/index.js";
import type { Chunk } from "./chunker.js";
import type { EmbeddingCache } from "./embedding-cache.js";
import { statement } from "./statements.js";
import type { VectorIndex } from "./vector-index.js";

/** The new state of one file: every chunk it now has, and vectors for the chunks the index lacks. */
export interface FileUpdate {
  path: string;
  hash: string;
  mtimeMs: number;
  size: number;
  chunkMaxBytes: number;
  chunks: ReadonlyArray<Chunk & { embedHash: string }>;
  vectors: ReadonlyMap<string, Float32Array>;
}

export interface FileChange {
  added: number;
  removed: number;
  /** Unchanged chunks whose line range moved because text above them changed. */
  moved: number;
  unchanged: number;
}

/** A chunk the plan expected to find in the index (or in the cache) but that another writer removed meanwhile. */
export class StalePlanError extends IronclawError {
  override readonly name = "StalePlanError";
  constructor(message: string) {
    super("stale_plan", message);
  }
}

/** The tables a file write touches, handed over by the index store that owns the connection. */
export interface ChunkTables {
  db: Database.Database;
  vectors: VectorIndex;
  cache: EmbeddingCache;
}

/** What the index holds for one stored chunk of a file, by chunk id. */
export interface ChunkKey {
  rowid: number;
  embedHash: string;
  startLine: number;
  endLine: number;
}

/** id → (rowid, embed hash, line range) of the chunks stored for a file. */
export function readChunkKeys(db: Database.Database, path: string): Map<string, ChunkKey> {
  const rows = statement<
    [string],
    { rowid: number; id: string; embed_hash: string; start_line: number; end_line: number }
  >(db, "SELECT rowid, id, embed_hash, start_line, end_line FROM chunks WHERE path = ?").all(path);
  return new Map(
    rows.map((r) => [
      r.id,
      { rowid: r.rowid, embedHash: r.embed_hash, startLine: r.start_line, endLine: r.end_line },
    ]),
  );
}

/**
 * Brings one file's chunks to `update` in a single transaction: deletes chunks that are gone, inserts new
 * ones (with their vectors, cached for next time), moves line ranges of unchanged ones. The diff is taken
 * again inside the transaction, so a plan made before another writer changed the file still lands correctly,
 * or fails with StalePlanError when it lacks a vector it now needs.
 */
export function applyFileUpdate(tables: ChunkTables, update: FileUpdate): FileChange {
  const { db, vectors, cache } = tables;
  return db
    .transaction((): FileChange => {
      const existing = readChunkKeys(db, update.path);
      const wanted = new Set(update.chunks.map((c) => c.id));
      const change: FileChange = { added: 0, removed: 0, moved: 0, unchanged: 0 };
      const dropped: string[] = [];
      const remove = statement<[number]>(db, "DELETE FROM chunks WHERE rowid = ?");
      for (const [id, old] of existing) {
        if (wanted.has(id)) continue;
        remove.run(old.rowid);
        vectors.delete(old.rowid);
        dropped.push(old.embedHash);
        change.removed++;
      }
      const missing = update.chunks.filter((c) => !existing.has(c.id) && !update.vectors.has(c.embedHash));
      const cached = cache.get(missing.map((c) => c.embedHash));
      const insert = statement<[ChunkParams]>(db, INSERT_CHUNK);
      const move = statement<[number, number, number]>(
        db,
        "UPDATE chunks SET start_line = ?, end_line = ? WHERE rowid = ?",
      );
      for (const chunk of update.chunks) {
        const old = existing.get(chunk.id);
        if (old) {
          if (old.startLine === chunk.startLine && old.endLine === chunk.endLine) change.unchanged++;
          else {
            move.run(chunk.startLine, chunk.endLine, old.rowid);
            change.moved++;
          }
          continue;
        }
        const vector = update.vectors.get(chunk.embedHash) ?? cached.get(chunk.embedHash);
        if (!vector) throw new StalePlanError(`${update.path}: no vector for chunk ${chunk.id}`);
        const rowid = Number(insert.run(chunkParams(chunk)).lastInsertRowid);
        vectors.insert(rowid, vector);
        cache.put(chunk.embedHash, vector);
        change.added++;
      }
      cache.forgetUnused(dropped);
      statement<[string, string, number, number, number, number, string]>(
        db,
        "INSERT OR REPLACE INTO files(path, hash, mtime_ms, size, chunk_max_bytes, chunk_count, indexed_at) " +
          "VALUES (?, ?, ?, ?, ?, ?, ?)",
      ).run(
        update.path,
        update.hash,
        update.mtimeMs,
        update.size,
        update.chunkMaxBytes,
        update.chunks.length,
        new Date().toISOString(),
      );
      return change;
    })
    .immediate();
}

/** Deletes a file's chunks, vectors, FTS entries, unused cached vectors and file record; returns chunks removed. */
export function removeFileChunks(tables: ChunkTables, path: string): number {
  const { db, vectors, cache } = tables;
  return db
    .transaction(() => {
      const existing = [...readChunkKeys(db, path).values()];
      const remove = statement<[number]>(db, "DELETE FROM chunks WHERE rowid = ?");
      for (const chunk of existing) {
        remove.run(chunk.rowid);
        vectors.delete(chunk.rowid);
      }
      cache.forgetUnused(existing.map((c) => c.embedHash));
      statement<[string]>(db, "DELETE FROM files WHERE path = ?").run(path);
      return existing.length;
    })
    .immediate();
}

const INSERT_CHUNK =
  "INSERT INTO chunks(id, path, headings, heading_text, ordinal, start_line, end_line, content, content_hash, " +
  "embed_hash) VALUES (@id, @path, @headings, @heading_text, @ordinal, @start_line, @end_line, @content, " +
  "@content_hash, @embed_hash)";

interface ChunkParams {
  id: string;
  path: string;
  headings: string;
  heading_text: string;
  ordinal: number;
  start_line: number;
  end_line: number;
  content: string;
  content_hash: string;
  embed_hash: string;
}

function chunkParams(chunk: Chunk & { embedHash: string }): ChunkParams {
  return {
    id: chunk.id,
    path: chunk.path,
    headings: JSON.stringify(chunk.headings),
    heading_text: chunk.headings.join(" › "),
    ordinal: chunk.ordinal,
    start_line: chunk.startLine,
    end_line: chunk.endLine,
    content: chunk.text,
    content_hash: chunk.contentHash,
    embed_hash: chunk.embedHash,
  };
}
