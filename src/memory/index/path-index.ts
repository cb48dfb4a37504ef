import type Database from "better-sqlite3";
import { statement } from "../statements.js";
import { ftsPhrase } from "./fts-query.js";

/** Words that look like a file name or path: joined by `.`, `/`, `-` or `_`, or a date. */
const PATHLIKE = /[\p{L}\p{N}_][\p{L}\p{N}_./-]*[\p{L}\p{N}_]/gu;
const DATE = /^\d{4}-\d{2}-\d{2}$/;
/** Files named by one query that are put first; more would push every other hit out of a short list. */
const MAX_NAMED = 3;

/**
 * The files a query names, found through `paths_fts` (a trigram index of every indexed file's path, see
 * index-schema.ts): "what's in knee-rehab.md", "logs/2025-03-02", "2025-03-02". A word names a file when it is
 * the file's path, ends its path, or is its name with or without `.md`; a date names every file dated by it
 * (that day's log and its session transcripts).
 */
export class PathIndex {
  constructor(private readonly db: Database.Database) {}

  namedFiles(query: string): string[] {
    const named: string[] = [];
    for (const word of pathlikeWords(query)) {
      const rows = statement<[string], { path: string }>(
        this.db,
        "SELECT path FROM paths_fts WHERE paths_fts MATCH ? ORDER BY length(path), path LIMIT 200",
      ).all(ftsPhrase(word));
      for (const { path } of rows) {
        if (names(word, path) && !named.includes(path)) named.push(path);
        if (named.length >= MAX_NAMED) return named;
      }
    }
    return named;
  }

  /** The rowid of a file's first chunk, or undefined when it has none. */
  firstChunkOf(path: string): number | undefined {
    return statement<[string], { rowid: number }>(
      this.db,
      "SELECT rowid FROM chunks WHERE path = ? ORDER BY start_line, ordinal LIMIT 1",
    ).get(path)?.rowid;
  }
}

/** Path-like words of a query, lower-cased, at least three characters (the trigram index's minimum). */
export function pathlikeWords(query: string): string[] {
  const words = Array.from(query.normalize("NFKC").matchAll(PATHLIKE), (m) => m[0].toLowerCase());
  return [
    ...new Set(
      words.filter(
        (w) =>
          w.length >= 3 && (DATE.test(w) || (/[./_-]/.test(w) && /\p{L}/u.test(w) && !/^\.|\.$/.test(w))),
      ),
    ),
  ];
}

function names(word: string, path: string): boolean {
  const p = path.toLowerCase();
  const base = p.slice(p.lastIndexOf("/") + 1);
  if (DATE.test(word)) return p.split("/").some((segment) => segment.startsWith(word));
  return p === word || p.endsWith(`/${word}`) || base === word || base === `${word}.md` || p === `${word}.md`;
}
