import type { LexicalIndex } from "../index/index.js";
import { cjkTrigrams, ftsPhrase, ftsTerms, isCjkWord } from "../index/index.js";

/**
 * One query's lexical leg over both FTS5 tables: its words in `chunks_fts`, the trigrams of its CJK runs in
 * `chunks_cjk`. bm25 is a sum over the query's terms, so a chunk's bm25 is the sum of its two tables' bm25, and
 * so is the ceiling the fusion divides it by.
 */
export class LexicalQuery {
  readonly words: string[];
  readonly trigrams: string[];
  private readonly wordMatch: string | undefined;
  private readonly trigramMatch: string | undefined;

  constructor(
    private readonly index: LexicalIndex,
    query: string,
  ) {
    // A CJK run is one unicode61 token that only an identical run matches; its trigrams do better.
    this.words = ftsTerms(query).filter((w) => !isCjkWord(w));
    this.trigrams = cjkTrigrams(query);
    this.wordMatch = this.words.length > 0 ? this.words.map(ftsPhrase).join(" OR ") : undefined;
    this.trigramMatch = this.trigrams.length > 0 ? this.trigrams.map(ftsPhrase).join(" OR ") : undefined;
  }

  get empty(): boolean {
    return this.wordMatch === undefined && this.trigramMatch === undefined;
  }

  /**
   * The best `limit` matches as [rowid, bm25], best first, and the bm25 of those of `also` that match either table (absent when neither),
   * each table read once (see `FtsTable.matchesWith`).
   */
  matchesWith(
    limit: number,
    also: readonly number[],
  ): { best: Array<[rowid: number, bm25: number]>; alsoScores: Map<number, number> } {
    const words = this.wordMatch
      ? this.index.words.matchesWith(this.wordMatch, limit, also)
      : { best: [], alsoScores: new Map<number, number>() };
    if (!this.trigramMatch) return words;
    const trigrams = this.index.trigrams.matchesWith(this.trigramMatch, limit, also);
    const sums = new Map(words.best);
    for (const [rowid, bm25] of trigrams.best) sums.set(rowid, (sums.get(rowid) ?? 0) + bm25);
    const alsoScores = words.alsoScores;
    for (const [rowid, bm25] of trigrams.alsoScores)
      alsoScores.set(rowid, (alsoScores.get(rowid) ?? 0) + bm25);
    return { best: [...sums].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, limit), alsoScores };
  }

  /** The bm25 of those of `rowids` that match either table. */
  scoresOf(rowids: readonly number[]): Map<number, number> {
    const sums = this.wordMatch
      ? this.index.words.scoresOf(this.wordMatch, rowids)
      : new Map<number, number>();
    if (this.trigramMatch) {
      for (const [rowid, bm25] of this.index.trigrams.scoresOf(this.trigramMatch, rowids)) {
        sums.set(rowid, (sums.get(rowid) ?? 0) + bm25);
      }
    }
    return sums;
  }

  /** The bm25 of an average chunk holding every term once (see `FtsTable.ceilingOf`). */
  ceiling(): number {
    this.index.refresh();
    return (
      this.index.words.ceilingOf(this.words.map(ftsPhrase)) +
      this.index.trigrams.ceilingOf(this.trigrams.map(ftsPhrase))
    );
  }
}
