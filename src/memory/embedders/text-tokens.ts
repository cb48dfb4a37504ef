const WORD = /[\p{L}\p{N}]+/gu;
// A lowercase letter or digit followed by an uppercase letter: the seam of camelCase identifiers.
const CAMEL_SEAM = /([\p{Ll}\p{N}])(\p{Lu})/gu;
// Plain text is printable ASCII, line breaks and tabs, and a few characters outside ASCII that NFKC leaves as
// one non-word character: the heading separator of embedding inputs (›), typographic quotes and dashes, a
// no-break space. Anything else takes the Unicode path.
const NOT_PLAIN = /[^\t\n\r -~\u00a0\u2013\u2014\u2018\u2019\u201c\u201d\u203a]/;

/**
 * Words of a text for the built-in embedder: NFKC-normalised, camelCase split (`sqliteVec` → sqlite, vec),
 * lowercased, runs of letters and digits. Markdown punctuation falls away by construction. Stops after `limit`
 * words so one huge chunk cannot stall indexing.
 */
export function tokenizeText(text: string, limit = 4096): string[] {
  return NOT_PLAIN.test(text) ? unicodeTokens(text, limit) : plainTokens(text, limit);
}

function unicodeTokens(text: string, limit: number): string[] {
  const prepared = text.normalize("NFKC").replace(CAMEL_SEAM, "$1 $2").toLowerCase();
  const out: string[] = [];
  for (const match of prepared.matchAll(WORD)) {
    out.push(match[0]);
    if (out.length >= limit) break;
  }
  return out;
}

// An ASCII word split at its camelCase seams: capitals, then lowercase letters and digits.
const PLAIN_WORD = /[A-Z]+[a-z0-9]*|[a-z0-9]+/g;

/**
 * The same words for ASCII text (plus the separators NOT_PLAIN lets through), where NFKC changes no word and
 * the classes are [a-z], [A-Z] and [0-9]: one regular expression without Unicode classes and without a match
 * object per word, instead of a normalisation, a replace and matchAll, which were half the time the embedder
 * spent on a chunk.
 */
function plainTokens(text: string, limit: number): string[] {
  const words = text.match(PLAIN_WORD) ?? [];
  if (words.length > limit) words.length = limit;
  for (let i = 0; i < words.length; i++) words[i] = (words[i] as string).toLowerCase();
  return words;
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
