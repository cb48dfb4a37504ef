import type Database from "better-sqlite3";
import type { Embedder } from "./embedders/embedder.js";
import { statement } from "./statements.js";
import { vectorBlob, vectorFromBlob } from "./vector-blob.js";

/**
 * Vectors keyed by (embedder, model, hash of the embedded text), so unchanged text is never sent to the
 * embedder twice: not after an edit elsewhere in the file, a rename, or switching embedders back and forth.
 */
export class EmbeddingCache {
  constructor(
    private readonly db: Database.Database,
    private readonly embedder: Pick<Embedder, "id" | "model" | "dimensions">,
  ) {}

  /** The cached vectors among `hashes`. */
  get(hashes: Iterable<string>): Map<string, Float32Array> {
    const found = new Map<string, Float32Array>();
    const select = statement<[string, string, string], { vector: Buffer }>(
      this.db,
      "SELECT vector FROM embedding_cache WHERE embedder = ? AND model = ? AND content_hash = ?",
    );
    for (const hash of new Set(hashes)) {
      const row = select.get(this.embedder.id, this.embedder.model, hash);
      if (row && row.vector.byteLength === this.embedder.dimensions * 4)
        found.set(hash, vectorFromBlob(row.vector));
    }
    return found;
  }

  /** The vectors of stored chunks, by chunk rowid, in one query. */
  forChunks(rowids: readonly number[]): Map<number, Float32Array> {
    const rows = statement<[string, string, string], { rowid: number; vector: Buffer }>(
      this.db,
      // CROSS JOIN fixes the join order: from the few rowids to their chunks to the cache rows, never a scan.
      "SELECT c.rowid AS rowid, e.vector AS vector FROM json_each(?) j " +
        "CROSS JOIN chunks c ON c.rowid = j.value " +
        "CROSS JOIN embedding_cache e ON e.embedder = ? AND e.model = ? AND e.content_hash = c.embed_hash",
    ).all(JSON.stringify(rowids), this.embedder.id, this.embedder.model);
    return new Map(rows.map((r) => [r.rowid, vectorFromBlob(r.vector)]));
  }

  put(hash: string, vector: Float32Array): void {
    statement<[string, string, string, Buffer]>(
      this.db,
      "INSERT INTO embedding_cache(embedder, model, content_hash, vector) VALUES (?, ?, ?, ?) " +
        "ON CONFLICT DO UPDATE SET vector = excluded.vector",
    ).run(this.embedder.id, this.embedder.model, hash, vectorBlob(vector));
  }

  /** Drops the vectors of `hashes` that no chunk uses any more, so deleted text leaves nothing behind. */
  forgetUnused(hashes: Iterable<string>): void {
    const remove = statement<[string, string, string, string]>(
      this.db,
      "DELETE FROM embedding_cache WHERE embedder = ? AND model = ? AND content_hash = ? " +
        "AND NOT EXISTS (SELECT 1 FROM chunks WHERE embed_hash = ?)",
    );
    for (const hash of new Set(hashes)) remove.run(this.embedder.id, this.embedder.model, hash, hash);
  }
}
