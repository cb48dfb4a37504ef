import type Database from "better-sqlite3";
import { statement } from "../statements.js";
import { CHUNK_COUNT_SQL } from "./index-schema.js";
import { PathIndex } from "./path-index.js";

/**
 * One FTS5 table over the chunks, read only here (the chunk writer adds entries and triggers remove them, see
 * index-schema.ts). Scores are FTS5's bm25 negated: larger is better. `match` is always an expression built
 * from `ftsPhrase`d words, never raw user text.
 */
export class FtsTable {
  /** Document frequencies by word, valid while the index is unchanged (see `LexicalIndex.refresh`). */
  readonly frequencies = new Map<string, number>();
  total = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly table: string,
    /** bm25 with the table's column weights. */
    private readonly bm25: string,
    /** Counts the rows the table indexes: bm25's N. */
    readonly totalSql: string,
  ) {}

  /** The best `limit` matches as [rowid, bm25], best first. */
  matches(match: string, limit: number): Array<[rowid: number, bm25: number]> {
    const rows = statement<[string, number], [number, number]>(
      this.db,
      `SELECT rowid, ${this.bm25} AS rank FROM ${this.table} WHERE ${this.table} MATCH ? ORDER BY rank LIMIT ?`,
    )
      .raw()
      .all(match, limit);
    return rows.map(([rowid, rank]) => [rowid, -rank]);
  }

  /**
   * The best `limit` matches, and the bm25 of those of `also` that match (absent when they do not), in one pass
   * over the matches. Scoring `also` by a second query (`scoresOf`) read every match again: at a million chunks
   * 6.8 ms a search, against 1–2 ms more for this one. Ordered with the chunks of `also` first, the first
   * `limit + also.length` rows hold every match of `also` and, past them, at least `limit` others best first,
   * so the best `limit` of all are among them.
   */
  matchesWith(
    match: string,
    limit: number,
    also: readonly number[],
  ): { best: Array<[rowid: number, bm25: number]>; alsoScores: Map<number, number> } {
    if (also.length === 0) return { best: this.matches(match, limit), alsoScores: new Map() };
    const rows = statement<[string, string, number], [number, number, number]>(
      this.db,
      `SELECT rowid, ${this.bm25} AS rank, rowid IN (SELECT value FROM json_each(?)) AS also ` +
        `FROM ${this.table} WHERE ${this.table} MATCH ? ORDER BY also DESC, rank LIMIT ?`,
    )
      .raw()
      .all(JSON.stringify(also), match, limit + also.length);
    const alsoScores = new Map<number, number>();
    const best: Array<[number, number]> = [];
    for (const [rowid, rank, isAlso] of rows) {
      if (isAlso) alsoScores.set(rowid, -rank);
      best.push([rowid, -rank]);
    }
    best.sort((a, b) => b[1] - a[1] || a[0] - b[0]);
    return { best: best.slice(0, limit), alsoScores };
  }

  /** The bm25 of those of `rowids` that match; a chunk that does not match is absent from the map. */
  scoresOf(match: string, rowids: readonly number[]): Map<number, number> {
    const rows = statement<[string, string], { rowid: number; rank: number }>(
      this.db,
      `SELECT rowid, ${this.bm25} AS rank FROM ${this.table} WHERE ${this.table} MATCH ? ` +
        "AND rowid IN (SELECT value FROM json_each(?))",
    ).all(match, JSON.stringify(rowids));
    return new Map(rows.map((r) => [r.rowid, -r.rank]));
  }

  /**
   * The bm25 a chunk of average length gets when it contains each of `phrases` once in its text: the sum of
   * their IDFs as FTS5 computes them (for one occurrence at average length, bm25's term factor is exactly 1).
   * A chunk's bm25 over this is the share of the query's word weight it matches, on the same scale for every
   * query — what the fusion needs instead of "the best of whatever matched".
   */
  ceilingOf(phrases: readonly string[]): number {
    let sum = 0;
    for (const phrase of phrases) {
      let hits = this.frequencies.get(phrase);
      if (hits === undefined) {
        hits =
          statement<[string], { n: number }>(
            this.db,
            `SELECT count(*) AS n FROM ${this.table} WHERE ${this.table} MATCH ?`,
          ).get(phrase)?.n ?? 0;
        this.frequencies.set(phrase, hits);
      }
      sum += inverseDocumentFrequency(hits, this.total);
    }
    return sum;
  }
}

/**
 * The lexical leg's storage: `chunks_fts` (unicode61 words with porter stemming; text, heading trail and path
 * weighted 1 : 2 : 0.5, since a heading match says what the whole section is about), `chunks_cjk` (trigrams of
 * the chunks with CJK text) and the path index.
 */
export class LexicalIndex {
  readonly words: FtsTable;
  readonly trigrams: FtsTable;
  readonly paths: PathIndex;
  private version = "";

  constructor(private readonly db: Database.Database) {
    this.words = new FtsTable(db, "chunks_fts", "bm25(chunks_fts, 1.0, 2.0, 0.5)", CHUNK_COUNT_SQL);
    // The docsize shadow table has one row per chunk the trigram index holds; counting the view would scan
    // every chunk.
    this.trigrams = new FtsTable(
      db,
      "chunks_cjk",
      "bm25(chunks_cjk, 1.0, 2.0)",
      "SELECT count(*) FROM chunks_cjk_docsize",
    );
    this.paths = new PathIndex(db);
  }

  /** The best `limit` word matches as [rowid, bm25], best first. */
  matches(match: string, limit: number): Array<[rowid: number, bm25: number]> {
    return this.words.matches(match, limit);
  }

  scoresOf(match: string, rowids: readonly number[]): Map<number, number> {
    return this.words.scoresOf(match, rowids);
  }

  /** Brain-relative paths of chunks by rowid, for ranking by the file a chunk comes from. */
  pathsOf(rowids: readonly number[]): Map<number, string> {
    const rows = statement<[string], { rowid: number; path: string }>(
      this.db,
      "SELECT rowid, path FROM chunks WHERE rowid IN (SELECT value FROM json_each(?))",
    ).all(JSON.stringify(rowids));
    return new Map(rows.map((r) => [r.rowid, r.path]));
  }

  /**
   * Forgets counted frequencies when anything was committed since they were counted: `data_version` moves on
   * another connection's commit, `total_changes()` on this one's. Call before `ceilingOf`.
   */
  refresh(): void {
    const row = statement<[], { v: number; c: number }>(
      this.db,
      "SELECT (SELECT data_version FROM pragma_data_version) AS v, total_changes() AS c",
    ).get();
    const version = `${row?.v}:${row?.c}`;
    if (version === this.version) return;
    this.version = version;
    for (const table of [this.words, this.trigrams]) {
      table.frequencies.clear();
      table.total = (this.db.prepare(table.totalSql).pluck().get() as number | undefined) ?? 0;
    }
  }
}

/** FTS5's bm25 IDF of a word found in `hits` of `total` chunks (its own clamp: never below 1e-6). */
export function inverseDocumentFrequency(hits: number, total: number): number {
  const idf = Math.log((total - hits + 0.5) / (hits + 0.5));
  return idf > 0 ? idf : 1e-6;
}
