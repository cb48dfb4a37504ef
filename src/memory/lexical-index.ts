import type Database from "better-sqlite3";
import { statement } from "./statements.js";

// bm25 column weights: chunk text, heading trail (a match there says what the whole section is about), path.
const BM25 = "bm25(chunks_fts, 1.0, 2.0, 0.5)";

/**
 * The lexical leg's storage: the external-content FTS5 table `chunks_fts` over the chunks, kept in step with
 * them by triggers (see index-schema.ts), so this class only reads. Scores are FTS5's bm25 negated: larger is
 * better. `match` is always an expression from `ftsMatchExpression`, never raw user text.
 */
export class LexicalIndex {
  constructor(private readonly db: Database.Database) {}

  /** The best `limit` matches as [rowid, bm25], best first. */
  matches(match: string, limit: number): Array<[rowid: number, bm25: number]> {
    const rows = statement<[string, number], [number, number]>(
      this.db,
      `SELECT rowid, ${BM25} AS rank FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY rank LIMIT ?`,
    )
      .raw()
      .all(match, limit);
    return rows.map(([rowid, rank]) => [rowid, -rank]);
  }

  /** The bm25 of those of `rowids` that match; a chunk that does not match is absent from the map. */
  scoresOf(match: string, rowids: readonly number[]): Map<number, number> {
    const rows = statement<[string, string], { rowid: number; rank: number }>(
      this.db,
      `SELECT rowid, ${BM25} AS rank FROM chunks_fts WHERE chunks_fts MATCH ? ` +
        "AND rowid IN (SELECT value FROM json_each(?))",
    ).all(match, JSON.stringify(rowids));
    return new Map(rows.map((r) => [r.rowid, -r.rank]));
  }
}
