// FTS5's unicode61 tokenizer splits on everything that is not a letter, digit or private-use character.
const TOKEN = /[\p{L}\p{N}\p{Co}]+/gu;

/** Very common English words: matching them costs time on a big index and adds nothing to the ranking. */
const STOPWORDS = new Set(
  (
    "a an and are as at be been but by can could did do does for from had has have how i if in into is it its " +
    "me my no not of on or our she so than that the their them then there these they this to was we were what " +
    "when where which who why will with would you your he him his her about after before over under also just " +
    "should shall may might must am any all some such only own same very too more most other each few both up"
  ).split(" "),
);

/**
 * Turns any user text into a safe FTS5 MATCH expression: each word becomes a quoted string token, joined by OR,
 * so quotes, `*`, `:`, `-`, `^`, parentheses, NEAR, AND, OR and NOT are matched as plain words (or dropped, for
 * punctuation) and can never be a syntax error. Stop words are dropped unless nothing else is left. Returns
 * undefined when the text has no words at all.
 */
export function ftsMatchExpression(text: string, maxTerms = 32): string | undefined {
  const words = [...new Set(Array.from(text.normalize("NFKC").matchAll(TOKEN), (m) => m[0].toLowerCase()))];
  if (words.length === 0) return undefined;
  const content = words.filter((w) => !STOPWORDS.has(w));
  const terms = (content.length > 0 ? content : words).slice(0, maxTerms);
  return terms.map((t) => `"${t}"`).join(" OR ");
}
