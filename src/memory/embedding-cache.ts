import type Database from "better-sqlite3";
import type { Embedder } from "./embedders/embedder.js";
import { statement } from "./statements.js";
import { vectorFromBlob } from "./vector/index.js";

/**
 * Vectors by (embedder, model, hash of the embedded text), so unchanged text is never sent to the embedder
 * twice: not after an edit elsewhere in the file, a rename, a rebuild, or switching embedders back and forth.
 *
 * The index's own embedder finds the vectors of live chunks where the vector leg keeps them (`chunk_vectors`,
 * through `chunks.embed_hash`); the `embedding_cache` table holds the rest: vectors kept when the index switched
 * to another embedder or was cleared for a rebuild. A copy of every live vector in that table, keyed by a
 * random hash, cost a quarter of an indexing pass at 300k chunks (wide rows inserted all over a B-tree that
 * outgrew the page cache) and as much disk as the vectors themselves.
 */
export class EmbeddingCache {
  constructor(
    private readonly db: Database.Database,
    private readonly embedder: Pick<Embedder, "id" | "model" | "dimensions">,
    /** The embedder is the index's: `chunk_vectors` holds its vectors. */
    private readonly live: boolean,
  ) {}

  /** The vectors known for `hashes`: a live chunk's with the same text, else one kept in the table. */
  get(hashes: Iterable<string>): Map<string, Float32Array> {
    const found = new Map<string, Float32Array>();
    const fromChunks = statement<[string], { vector: Buffer }>(
      this.db,
      "SELECT v.embedding AS vector FROM chunks c CROSS JOIN chunk_vectors v ON v.rowid = c.rowid " +
        "WHERE c.embed_hash = ? LIMIT 1",
    );
    const kept = statement<[string, string, string], { vector: Buffer }>(
      this.db,
      "SELECT vector FROM embedding_cache WHERE embedder = ? AND model = ? AND content_hash = ?",
    );
    for (const hash of new Set(hashes)) {
      const row =
        (this.live ? fromChunks.get(hash) : undefined) ??
        kept.get(this.embedder.id, this.embedder.model, hash);
      if (row && row.vector.byteLength === this.embedder.dimensions * 4)
        found.set(hash, vectorFromBlob(row.vector));
    }
    return found;
  }

  /** The vectors of stored chunks, by chunk rowid, in one query. */
  forChunks(rowids: readonly number[]): Map<number, Float32Array> {
    if (this.live) {
      const rows = statement<[string], { rowid: number; vector: Buffer }>(
        this.db,
        "SELECT v.rowid AS rowid, v.embedding AS vector FROM json_each(?) j " +
          "CROSS JOIN chunk_vectors v ON v.rowid = j.value",
      ).all(JSON.stringify(rowids));
      return new Map(rows.map((r) => [r.rowid, vectorFromBlob(r.vector)]));
    }
    const rows = statement<[string, string, string], { rowid: number; vector: Buffer }>(
      this.db,
      // CROSS JOIN fixes the join order: from the few rowids to their chunks to the cache rows, never a scan.
      "SELECT c.rowid AS rowid, e.vector AS vector FROM json_each(?) j " +
        "CROSS JOIN chunks c ON c.rowid = j.value " +
        "CROSS JOIN embedding_cache e ON e.embedder = ? AND e.model = ? AND e.content_hash = c.embed_hash",
    ).all(JSON.stringify(rowids), this.embedder.id, this.embedder.model);
    return new Map(rows.map((r) => [r.rowid, vectorFromBlob(r.vector)]));
  }

  /**
   * Copies the vectors of every live chunk into the table, before the vector leg is dropped (another embedder,
   * a rebuild). Call it for the embedder that made them.
   */
  keepLive(): void {
    statement<[string, string]>(
      this.db,
      "INSERT INTO embedding_cache(embedder, model, content_hash, vector) " +
        "SELECT ?, ?, c.embed_hash, v.embedding FROM chunks c CROSS JOIN chunk_vectors v ON v.rowid = c.rowid " +
        "WHERE true ON CONFLICT DO UPDATE SET vector = excluded.vector",
    ).run(this.embedder.id, this.embedder.model);
  }

  /** Drops the kept vectors of `hashes` that no chunk uses any more, so deleted text leaves nothing behind. */
  forgetUnused(hashes: Iterable<string>): void {
    const remove = statement<[string, string, string, string]>(
      this.db,
      "DELETE FROM embedding_cache WHERE embedder = ? AND model = ? AND content_hash = ? " +
        "AND NOT EXISTS (SELECT 1 FROM chunks WHERE embed_hash = ?)",
    );
    for (const hash of new Set(hashes)) remove.run(this.embedder.id, this.embedder.model, hash, hash);
  }
}
