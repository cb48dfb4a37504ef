import type Database from "better-sqlite3";
import { IronclawError } from "../../core/index.js";
import type { Chunk } from "../chunker.js";
import type { EmbeddingCache } from "../embedding-cache.js";
import { statement } from "../statements.js";
import type { ChunkRow } from "../stored-chunk.js";
import type { VectorIndex } from "../vector/index.js";
import { cjkMark } from "./index-schema.js";

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

/**
 * The tables a file write touches, handed over by the index store that owns the connection. The writes below
 * run inside the store's batch (`IndexStore.writeBatch`), which owns the transaction and writes `lexical` out
 * before it commits.
 */
export interface ChunkTables {
  db: Database.Database;
  vectors: VectorIndex;
  cache: EmbeddingCache;
  /** The full-text entries of chunks inserted in this transaction and not yet written. */
  lexical: PendingLexical;
}

interface LexicalRow {
  rowid: number;
  content: string;
  headingText: string;
  path: string;
  cjk: 0 | 1;
}

/**
 * The full-text entries (`chunks_fts`, and `chunks_cjk` for chunks with CJK text) of chunks inserted in the
 * current transaction, written in one run at its end rather than by a trigger per chunk. Any statement that
 * fires a trigger opens a statement savepoint, and FTS5 answers every savepoint by writing its pending terms
 * out as a new segment: fed by a trigger, it wrote one segment per chunk and spent the pass merging them
 * (the full-text part of indexing took 55 µs a chunk against 21 µs in one run). Deletes still go through
 * triggers, so the queue is written before anything deletes a chunk.
 */
export class PendingLexical {
  private rows: LexicalRow[] = [];

  add(row: LexicalRow): void {
    this.rows.push(row);
  }

  /** Writes the queued entries; within the transaction that inserted their chunks. */
  write(db: Database.Database): void {
    if (this.rows.length === 0) return;
    const words = statement<[number, string, string, string]>(
      db,
      "INSERT INTO chunks_fts(rowid, content, headings, path) VALUES (?, ?, ?, ?)",
    );
    const trigrams = statement<[number, string, string]>(
      db,
      "INSERT INTO chunks_cjk(rowid, content, headings) VALUES (?, ?, ?)",
    );
    for (const row of this.rows) {
      words.run(row.rowid, row.content, row.headingText, row.path);
      if (row.cjk) trigrams.run(row.rowid, row.content, row.headingText);
    }
    this.rows = [];
  }

  /** Forgets the queue of a transaction that rolled back: its chunks are gone. */
  discard(): void {
    this.rows = [];
  }
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
 * Brings one file's chunks to `update`: deletes chunks that are gone, inserts new ones (with their vectors
 * and their full-text entries), moves line ranges of unchanged ones. The diff is taken
 * again inside the transaction, so a plan made before another writer changed the file still lands correctly,
 * or fails with StalePlanError when it lacks a vector it now needs; that is found before anything is written.
 *
 * The file is no savepoint of its own, since a savepoint makes FTS5 write a segment, and nothing here needs
 * one: a stale plan throws before writing, and any other failure aborts the whole batch.
 */
export function applyFileUpdate(tables: ChunkTables, update: FileUpdate): FileChange {
  const { db, vectors, cache, lexical } = tables;
  const existing = readChunkKeys(db, update.path);
  const added = update.chunks.filter((c) => !existing.has(c.id));
  const cached = cache.get(added.filter((c) => !update.vectors.has(c.embedHash)).map((c) => c.embedHash));
  const vectorOf = (chunk: (typeof added)[number]) => {
    const vector = update.vectors.get(chunk.embedHash) ?? cached.get(chunk.embedHash);
    if (!vector) throw new StalePlanError(`${update.path}: no vector for chunk ${chunk.id}`);
    return vector;
  };
  for (const chunk of added) vectorOf(chunk);

  const wanted = new Set(update.chunks.map((c) => c.id));
  const change: FileChange = { added: 0, removed: 0, moved: 0, unchanged: 0 };
  const dropped: string[] = [];
  const remove = statement<[number]>(db, "DELETE FROM chunks WHERE rowid = ?");
  for (const [id, old] of existing) {
    if (wanted.has(id)) continue;
    lexical.write(db);
    remove.run(old.rowid);
    vectors.delete(old.rowid);
    dropped.push(old.embedHash);
    change.removed++;
  }
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
    const vector = vectorOf(chunk);
    const params = chunkParams(chunk);
    const rowid = Number(insert.run(params).lastInsertRowid);
    lexical.add({
      rowid,
      content: params.content,
      headingText: params.heading_text,
      path: chunk.path,
      cjk: params.cjk,
    });
    vectors.insert(rowid, vector);
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
}

/** Deletes a file's chunks, vectors, FTS entries, unused cached vectors and file record; returns chunks removed. */
export function removeFileChunks(tables: ChunkTables, path: string): number {
  const { db, vectors, cache, lexical } = tables;
  lexical.write(db);
  const existing = [...readChunkKeys(db, path).values()];
  const remove = statement<[number]>(db, "DELETE FROM chunks WHERE rowid = ?");
  for (const chunk of existing) {
    remove.run(chunk.rowid);
    vectors.delete(chunk.rowid);
  }
  cache.forgetUnused(existing.map((c) => c.embedHash));
  statement<[string]>(db, "DELETE FROM files WHERE path = ?").run(path);
  return existing.length;
}

const INSERT_CHUNK =
  "INSERT INTO chunks(id, path, headings, heading_text, ordinal, start_line, end_line, content, content_hash, " +
  "embed_hash, cjk) VALUES (@id, @path, @headings, @heading_text, @ordinal, @start_line, @end_line, @content, " +
  "@content_hash, @embed_hash, @cjk)";

/** A chunks row as INSERT_CHUNK binds it: the row SQLite returns, less the rowid it assigns, plus the CJK mark. */
type ChunkParams = Omit<ChunkRow, "rowid"> & { cjk: 0 | 1 };

function chunkParams(chunk: Chunk & { embedHash: string }): ChunkParams {
  const headingText = chunk.headings.join(" › ");
  return {
    id: chunk.id,
    path: chunk.path,
    headings: JSON.stringify(chunk.headings),
    heading_text: headingText,
    ordinal: chunk.ordinal,
    start_line: chunk.startLine,
    end_line: chunk.endLine,
    content: chunk.text,
    content_hash: chunk.contentHash,
    embed_hash: chunk.embedHash,
    cjk: cjkMark(chunk.text, headingText),
  };
}
