import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import * as sqliteVec from "sqlite-vec";
import { ConflictError } from "../../core/index.js";
import { CompactionLog } from "../compaction-log.js";
import { type Embedder, embedderKey, parseEmbedderKey } from "../embedders/embedder.js";
import { EmbeddingCache } from "../embedding-cache.js";
import { statement } from "../statements.js";
import { type ChunkRow, type StoredChunk, storedChunk } from "../stored-chunk.js";
import { DEFAULT_VECTOR_TUNING, VectorIndex, type VectorIndexTuning, VectorTable } from "../vector/index.js";
import {
  applyFileUpdate,
  type ChunkKey,
  type ChunkTables,
  type FileChange,
  type FileUpdate,
  PendingLexical,
  readChunkKeys,
  removeFileChunks,
} from "./file-writes.js";
import { CHUNK_COUNT_SQL, migrateIndex } from "./index-schema.js";
import { LexicalIndex } from "./lexical-index.js";

export { type ChunkKey, type FileChange, type FileUpdate, StalePlanError } from "./file-writes.js";

export interface FileRecord {
  path: string;
  hash: string;
  mtimeMs: number;
  size: number;
  chunkMaxBytes: number;
  chunkCount: number;
  indexedAt: string;
}

type EmbeddingSpace = Pick<Embedder, "id" | "model" | "dimensions">;

/**
 * The brain database (`db/ironclaw.db`): chunks, FTS5, vectors, files, embedding cache, compactions. Every write
 * that changes what a search can see commits whole files (one, or a batch of them), so a reader never sees
 * half a file.
 *
 * The store owns its connection and all SQL on these tables: the lexical and vector legs, the embedding cache
 * and the compaction log are its parts, each with its own statements. Nothing outside memory sees the connection.
 */
export class IndexStore {
  /** The FTS5 leg of hybrid search. */
  readonly lexical: LexicalIndex;
  /** The `compactions` table (seed 003 §7). */
  readonly compactions: CompactionLog;
  private vectorIndex: VectorIndex | undefined;
  private readonly pendingLexical = new PendingLexical();
  private batching = false;

  private constructor(
    private readonly db: Database.Database,
    readonly file: string,
    private readonly tuning: VectorIndexTuning,
  ) {
    this.lexical = new LexicalIndex(db);
    this.compactions = new CompactionLog(db);
  }

  static open(file: string, options: { tuning?: Partial<VectorIndexTuning> } = {}): IndexStore {
    mkdirSync(dirname(file), { recursive: true });
    const db = new Database(file);
    try {
      sqliteVec.load(db);
      db.pragma("journal_mode = WAL");
      db.pragma("synchronous = NORMAL");
      db.pragma("busy_timeout = 10000");
      db.pragma("cache_size = -65536");
      db.pragma("mmap_size = 268435456");
      migrateIndex(db, file);
    } catch (error) {
      db.close();
      throw error;
    }
    return new IndexStore(db, file, { ...DEFAULT_VECTOR_TUNING, ...options.tuning });
  }

  close(): void {
    this.db.close();
  }

  /** Runs `read` in one read transaction: all its statements see one snapshot, whatever commits meanwhile. */
  read<T>(read: () => T): T {
    return this.db.transaction(read).deferred();
  }

  /** The embedding space the stored vectors belong to, or undefined for a new index. */
  indexedEmbedder(): { key: string; dimensions: number } | undefined {
    const key = this.meta("embedder");
    const dims = this.meta("embedder_dimensions");
    return key === undefined || dims === undefined ? undefined : { key, dimensions: Number(dims) };
  }

  embedderMatches(embedder: EmbeddingSpace): boolean {
    return this.indexedEmbedder()?.key === embedderKey(embedder);
  }

  /**
   * Makes `embedder` the index's embedder. A different one than before means every vector is meaningless, so
   * chunks, vectors and file records are cleared (the cache stays: switching back is free). Returns true when
   * vectors of another embedder were dropped.
   */
  useEmbedder(embedder: EmbeddingSpace): boolean {
    if (this.embedderMatches(embedder)) return false;
    const previous = this.indexedEmbedder();
    this.db
      .transaction(() => {
        this.keepLiveVectors();
        VectorIndex.drop(this.db);
        this.db.exec("DELETE FROM chunks; DELETE FROM files;");
        VectorIndex.create(this.db, embedder.dimensions);
        this.setMeta("embedder", embedderKey(embedder));
        this.setMeta("embedder_dimensions", String(embedder.dimensions));
      })
      .immediate();
    this.vectorIndex = undefined;
    return previous !== undefined;
  }

  /** Empties chunks, FTS, vectors and file records in one transaction; the embedding cache stays. */
  clear(): void {
    const indexed = this.indexedEmbedder();
    this.db
      .transaction(() => {
        this.keepLiveVectors();
        VectorIndex.drop(this.db);
        this.db.exec("DELETE FROM chunks; DELETE FROM files;");
        if (indexed) VectorIndex.create(this.db, indexed.dimensions);
      })
      .immediate();
    this.vectorIndex = undefined;
  }

  /** The semantic leg; throws when the index was built by another embedder than the one searching it. */
  vectors(embedder: EmbeddingSpace): VectorIndex {
    if (!this.embedderMatches(embedder)) {
      const indexed = this.indexedEmbedder()?.key ?? "nothing (the index is empty)";
      throw new ConflictError(
        `the index holds vectors of ${indexed}, not ${embedderKey(embedder)}: run \`ironclaw memory index\` to re-embed`,
      );
    }
    this.vectorIndex ??= new VectorIndex(this.db, embedder.dimensions, this.tuning);
    return this.vectorIndex;
  }

  cache(embedder: EmbeddingSpace): EmbeddingCache {
    return new EmbeddingCache(this.db, embedder, this.embedderMatches(embedder));
  }

  /** Copies the live chunks' vectors into the embedding cache under the embedder that made them. */
  private keepLiveVectors(): void {
    const indexed = this.indexedEmbedder();
    const space = indexed && parseEmbedderKey(indexed.key);
    if (!space) return;
    VectorTable.ensure(this.db);
    new EmbeddingCache(this.db, space, true).keepLive();
  }

  fileRecord(path: string): FileRecord | undefined {
    return statement<[string], FileRecord>(this.db, `${FILE_SELECT} WHERE path = ?`).get(path);
  }

  fileRecords(): FileRecord[] {
    return statement<[], FileRecord>(this.db, `${FILE_SELECT} ORDER BY path`).all();
  }

  /** When the last file was indexed (ISO 8601), or null for an empty index. */
  lastIndexedAt(): string | null {
    const row = statement<[], { at: string | null }>(
      this.db,
      "SELECT max(indexed_at) AS at FROM files",
    ).get();
    return row?.at ?? null;
  }

  /** Records a new mtime for a file whose content hash did not change. */
  touchFile(path: string, mtimeMs: number, size: number): void {
    statement<[number, number, string]>(
      this.db,
      "UPDATE files SET mtime_ms = ?, size = ? WHERE path = ?",
    ).run(mtimeMs, size, path);
  }

  /** id → (rowid, embed hash, line range) of the chunks stored for a file. */
  chunkKeys(path: string): Map<string, ChunkKey> {
    return readChunkKeys(this.db, path);
  }

  /**
   * Runs `write` in one write transaction: the files it applies commit together, and their full-text entries
   * are written at its end. A reader sees none of them or all. A file whose plan is stale is refused before it
   * writes anything; any other failure rolls the whole batch back.
   */
  writeBatch<T>(write: () => T): T {
    if (this.batching) throw new Error("writeBatch: a batch is already open");
    this.batching = true;
    try {
      return this.db
        .transaction(() => {
          const result = write();
          this.pendingLexical.write(this.db);
          return result;
        })
        .immediate();
    } finally {
      this.batching = false;
      this.pendingLexical.discard();
    }
  }

  /** One file's new chunks, in the open batch or a batch of its own; see `applyFileUpdate`. */
  applyFile(update: FileUpdate, embedder: Embedder): FileChange {
    return this.inBatch(() => applyFileUpdate(this.chunkTables(embedder), update));
  }

  /** Everything indexed for a file, in the open batch or a batch of its own; see `removeFileChunks`. */
  removeFile(path: string, embedder: Embedder): number {
    return this.inBatch(() => removeFileChunks(this.chunkTables(embedder), path));
  }

  private inBatch<T>(write: () => T): T {
    return this.batching ? write() : this.writeBatch(write);
  }

  chunkCount(): number {
    return statement<[], { n: number }>(this.db, CHUNK_COUNT_SQL).get()?.n ?? 0;
  }

  /** Stored chunks by rowid, in the order asked. */
  chunksByRowid(rowids: readonly number[]): StoredChunk[] {
    const rows = statement<[string], ChunkRow>(
      this.db,
      "SELECT rowid, * FROM chunks WHERE rowid IN (SELECT value FROM json_each(?))",
    ).all(JSON.stringify(rowids));
    const byRowid = new Map(rows.map((r) => [r.rowid, storedChunk(r)]));
    return rowids.flatMap((r) => byRowid.get(r) ?? []);
  }

  chunksOfFile(path: string): StoredChunk[] {
    return statement<[string], ChunkRow>(
      this.db,
      "SELECT rowid, * FROM chunks WHERE path = ? ORDER BY start_line, ordinal",
    )
      .all(path)
      .map(storedChunk);
  }

  meta(key: string): string | undefined {
    return statement<[string], { value: string }>(this.db, "SELECT value FROM meta WHERE key = ?").get(key)
      ?.value;
  }

  setMeta(key: string, value: string): void {
    statement<[string, string]>(
      this.db,
      "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
    ).run(key, value);
  }

  private chunkTables(embedder: Embedder): ChunkTables {
    return {
      db: this.db,
      vectors: this.vectors(embedder),
      cache: this.cache(embedder),
      lexical: this.pendingLexical,
    };
  }
}

const FILE_SELECT =
  "SELECT path, hash, mtime_ms AS mtimeMs, size, chunk_max_bytes AS chunkMaxBytes, chunk_count AS chunkCount, " +
  "indexed_at AS indexedAt FROM files";
