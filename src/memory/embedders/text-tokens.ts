const WORD = /[\p{L}\p{N}]+/gu;
// A lowercase letter or digit followed by an uppercase letter: the seam of camelCase identifiers.
const CAMEL_SEAM = /([\p{Ll}\p{N}])(\p{Lu})/gu;

/**
 * Words of a text for the built-in embedder: NFKC-normalised, camelCase split (`sqliteVec` → sqlite, vec),
 * lowercased, runs of letters and digits. Markdown punctuation falls away by construction. Stops after `limit`
 * words so one huge chunk cannot stall indexing.
 */
export function tokenizeText(text: string, limit = 4096): string[] {
  const prepared = text.normalize("NFKC").replace(CAMEL_SEAM, "$1 $2").toLowerCase();
  const out: string[] = [];
  for (const match of prepared.matchAll(WORD)) {
    out.push(match[0]);
    if (out.length >= limit) break;
  }
  return out;
}

/** Suffix rules tried in order when a word is not in the vocabulary: `[suffix, replacement]`. */
const SUFFIXES: ReadonlyArray<readonly [string, string]> = [
  ["ies", "y"],
  ["ied", "y"],
  ["es", ""],
  ["s", ""],
  ["ing", ""],
  ["ing", "e"],
  ["ed", ""],
  ["ed", "e"],
  ["ly", ""],
  ["er", ""],
  ["ers", ""],
  ["ment", ""],
  ["ness", ""],
  ["ation", "ate"],
  ["ations", "ate"],
];

/**
 * Simpler forms of a word, most specific first, for looking up inflections the vocabulary lacks
 * (`reindexing` → reindex). Not a full stemmer: a miss falls through to character n-grams anyway.
 */
export function stemCandidates(word: string): string[] {
  const out: string[] = [];
  for (const [suffix, replacement] of SUFFIXES) {
    if (word.length - suffix.length >= 3 && word.endsWith(suffix)) {
      out.push(word.slice(0, word.length - suffix.length) + replacement);
    }
  }
  // Doubled final consonant before -ing/-ed: running → run, stopped → stop.
  const doubled = /^(.{2,}?)([b-df-hj-np-tv-z])\2(?:ing|ed)$/.exec(word);
  if (doubled) out.push(`${doubled[1]}${doubled[2]}`);
  return out;
}
