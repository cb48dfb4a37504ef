// FTS5's unicode61 tokenizer splits on everything that is not a letter, digit or private-use character.
const TOKEN = /[\p{L}\p{N}\p{Co}]+/gu;

/** Very common English words: matching them costs time on a big index and adds nothing to the ranking. */
const STOPWORDS = new Set(
  (
    "a an and are as at be been but by can could did do does for from had has have how i if in into is it its " +
    "me my no not of on or our she so than that the their them then there these they this to was we were what " +
    "when where which who why will with would you your he him his her about after before over under also just " +
    "should shall may might must am any all some such only own same very too more most other each few both up " +
    // What is left of "won't" and "can't" once the contraction is cut off.
    "wo ca"
  ).split(" "),
);

// "what's", "Tomas's", "won't", "I'd": FTS5 would search the bare "s", "t" or "d", which match every possessive
// and contraction in the brain, so the contracted part is cut off before the words are taken.
const CONTRACTION = /(?<=\p{L})n?['’](?:s|t|d|ll|re|ve|m)(?![\p{L}\p{N}])/giu;

/**
 * The words of any user text that a search looks for, lower-cased and deduplicated, in order: stop words are
 * dropped unless nothing else is left, and at most `maxTerms` are kept.
 */
export function ftsTerms(text: string, maxTerms = 32): string[] {
  const plain = text.normalize("NFKC").replace(CONTRACTION, "");
  const words = [...new Set(Array.from(plain.matchAll(TOKEN), (m) => m[0].toLowerCase()))];
  const content = words.filter((w) => !STOPWORDS.has(w));
  return (content.length > 0 ? content : words).slice(0, maxTerms);
}

/** One word as an FTS5 string token: matched as a plain word, whatever it spells. */
export function ftsPhrase(word: string): string {
  return `"${word.replaceAll('"', '""')}"`;
}

/**
 * Turns any user text into a safe FTS5 MATCH expression: each word becomes a quoted string token, joined by OR,
 * so quotes, `*`, `:`, `-`, `^`, parentheses, NEAR, AND, OR and NOT are matched as plain words (or dropped, for
 * punctuation) and can never be a syntax error. Returns undefined when the text has no words at all.
 */
export function ftsMatchExpression(text: string, maxTerms = 32): string | undefined {
  const terms = ftsTerms(text, maxTerms);
  return terms.length === 0 ? undefined : terms.map(ftsPhrase).join(" OR ");
}

// Han, kana, Hangul and half-width katakana: the ranges the trigram index holds (index-schema.ts).
const CJK_RUN = /[\u2E80-\u9FFF\uAC00-\uD7AF\uFF66-\uFF9F]{3,}/gu;
const MAX_TRIGRAMS = 32;

/**
 * The trigrams of the CJK runs of three or more characters in `text`, for the trigram index: "京都の旅館"
 * becomes 京都の, 都の旅, の旅館, so a chunk holding the phrase matches all three and one sharing part of it
 * matches some. Shorter runs are left to the unicode61 index (trigrams cannot match fewer than three).
 */
export function cjkTrigrams(text: string): string[] {
  const grams = new Set<string>();
  for (const [run] of text.normalize("NFKC").matchAll(CJK_RUN)) {
    const chars = Array.from(run);
    for (let i = 0; i + 3 <= chars.length; i++) grams.add(chars.slice(i, i + 3).join(""));
  }
  return [...grams].slice(0, MAX_TRIGRAMS);
}

const HAS_CJK_RUN = /[\u2E80-\u9FFF\uAC00-\uD7AF\uFF66-\uFF9F]{3,}/u;

/** True for a word the trigram index searches instead (it holds a CJK run of three or more characters). */
export function isCjkWord(word: string): boolean {
  return HAS_CJK_RUN.test(word);
}
