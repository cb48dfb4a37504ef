/** A half-open range of UTF-16 offsets into a source text. */
export interface TextRange {
  start: number;
  end: number;
}

type Cutter = (text: string) => number[];

const sentences = new Intl.Segmenter("en", { granularity: "sentence" });

/**
 * The most text one Intl.Segmenter call is given. V8 gives every segment a fresh copy of the whole input (its
 * `input` field), so one call over n characters allocates about n²/(sentence length) bytes: a pasted 180 kB
 * message made ~700 MB and aborted the cell on its heap limit. Windows of this size keep it linear.
 */
export const SENTENCE_WINDOW = 4096;

/** Boundaries tried in order, coarsest first: sentences (ICU also ends one at a newline), lines, words. */
const CUTTERS: Cutter[] = [
  (text) => sentenceStarts(text),
  (text) => offsetsAfter(text, /\n/g),
  (text) => offsetsAfter(text, /\s+/g),
];

/**
 * Splits a range that is too big into ranges of at most `maxBytes` UTF-8 bytes, at the coarsest boundary that
 * fits, trimming whitespace at the edges. A single word longer than the limit is cut between code points.
 */
export function splitRange(source: string, range: TextRange, maxBytes: number, level = 0): TextRange[] {
  const trimmed = trim(source, range);
  if (trimmed.end <= trimmed.start) return [];
  if (bytesOf(source, trimmed) <= maxBytes) return [trimmed];
  const cutter = CUTTERS[level];
  if (!cutter) return hardCut(source, trimmed, maxBytes);
  const text = source.slice(trimmed.start, trimmed.end);
  const cuts = [...new Set(cutter(text).filter((c) => c > 0 && c < text.length))].sort((a, b) => a - b);
  const bounds = [0, ...cuts, text.length].map((c) => trimmed.start + c);
  const out: TextRange[] = [];
  let current: TextRange | undefined;
  for (let i = 0; i + 1 < bounds.length; i++) {
    const piece = { start: bounds[i] as number, end: bounds[i + 1] as number };
    const joined: TextRange | undefined = current && { start: current.start, end: piece.end };
    if (joined && bytesOf(source, joined) <= maxBytes) {
      current = joined;
      continue;
    }
    if (current) out.push(...splitRange(source, current, maxBytes, level + 1));
    current = piece;
  }
  if (current) out.push(...splitRange(source, current, maxBytes, level + 1));
  return out;
}

/**
 * Sentence starts, found window by window (see SENTENCE_WINDOW). A window ends after the last newline in it, where
 * ICU ends a sentence anyway, else after its last whitespace; only a window with neither is cut mid-word.
 */
export function sentenceStarts(text: string): number[] {
  const starts: number[] = [];
  for (let from = 0; from < text.length; ) {
    let to = Math.min(text.length, from + SENTENCE_WINDOW);
    if (to < text.length) {
      const window = text.slice(from, to);
      const newline = window.lastIndexOf("\n");
      const space = newline > 0 ? newline : window.search(/\s\S*$/);
      if (space > 0) to = from + space + 1;
    }
    for (const segment of sentences.segment(text.slice(from, to))) starts.push(from + segment.index);
    from = to;
  }
  return starts;
}

function hardCut(source: string, range: TextRange, maxBytes: number): TextRange[] {
  const out: TextRange[] = [];
  let start = range.start;
  let bytes = 0;
  for (let i = range.start; i < range.end; ) {
    const code = source.codePointAt(i) ?? 0;
    const width = code > 0xffff ? 2 : 1;
    const size = code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
    if (bytes + size > maxBytes) {
      out.push({ start, end: i });
      start = i;
      bytes = 0;
    }
    bytes += size;
    i += width;
  }
  if (start < range.end) out.push({ start, end: range.end });
  return out;
}

function trim(source: string, range: TextRange): TextRange {
  let { start, end } = range;
  while (start < end && /\s/.test(source[start] as string)) start++;
  while (end > start && /\s/.test(source[end - 1] as string)) end--;
  return { start, end };
}

function bytesOf(source: string, range: TextRange): number {
  return Buffer.byteLength(source.slice(range.start, range.end), "utf8");
}

function offsetsAfter(text: string, pattern: RegExp): number[] {
  return [...text.matchAll(pattern)].map((m) => m.index + m[0].length);
}
