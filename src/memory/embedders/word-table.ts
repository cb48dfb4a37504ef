import { InvalidInputError } from "../../core/index.js";

/**
 * The built-in embedder's word vectors in a compact binary form that is usable straight after `readFile`:
 * every section is a typed-array view, and the word → row lookup is an open-addressing hash table stored in
 * the file, so loading costs one read (~10 ms for 100k words) instead of building a Map (~50 ms).
 *
 *   header   32 bytes: magic "ICWT", format, word count, dimensions, word byte length, hash slot count
 *   weights  float32 × count        smooth-inverse-frequency weight of each word
 *   scales   float32 × count        int8 → float factor of each row
 *   offsets  uint32 × (count + 1)   where each word starts in the word bytes
 *   slots    uint32 × slotCount     row + 1 of the word hashed there (FNV-1a of its UTF-8), 0 when empty
 *   vectors  int8 × count × dims    unit-length rows quantised per row, padded to 4 bytes
 *   words    UTF-8 bytes of every word, concatenated in row order
 */
export class WordTable {
  private constructor(
    readonly count: number,
    readonly dimensions: number,
    readonly weights: Float32Array,
    readonly scales: Float32Array,
    readonly vectors: Int8Array,
    private readonly offsets: Uint32Array,
    private readonly slots: Uint32Array,
    private readonly words: Uint8Array,
  ) {}

  /** The row of a word, or -1. Allocation-free for ASCII words, which is nearly every lookup. */
  lookup(word: string): number {
    const ascii = isAscii(word);
    const bytes = ascii ? undefined : Buffer.from(word, "utf8");
    const hash = bytes ? fnv1a(bytes) : fnv1aAscii(word);
    const mask = this.slots.length - 1;
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const entry = this.slots[slot] as number;
      if (entry === 0) return -1;
      const row = entry - 1;
      if (this.wordEquals(row, word, bytes)) return row;
    }
  }

  wordAt(row: number): string {
    return Buffer.from(this.words.buffer, this.words.byteOffset, this.words.length).toString(
      "utf8",
      this.offsets[row],
      this.offsets[row + 1],
    );
  }

  private wordEquals(row: number, word: string, bytes: Buffer | undefined): boolean {
    const start = this.offsets[row] as number;
    const length = (this.offsets[row + 1] as number) - start;
    const target = bytes ?? word;
    if (length !== target.length) return false;
    for (let i = 0; i < length; i++) {
      const expected = bytes ? (bytes[i] as number) : word.charCodeAt(i);
      if (this.words[start + i] !== expected) return false;
    }
    return true;
  }

  static encode(
    words: readonly string[],
    data: { dimensions: number; weights: Float32Array; scales: Float32Array; vectors: Int8Array },
  ): Buffer {
    const count = words.length;
    const encoded = words.map((w) => Buffer.from(w, "utf8"));
    const offsets = new Uint32Array(count + 1);
    for (let i = 0; i < count; i++) offsets[i + 1] = (offsets[i] as number) + (encoded[i] as Buffer).length;
    let slotCount = 1;
    while (slotCount < count * 2) slotCount *= 2;
    const slots = new Uint32Array(slotCount);
    for (let row = 0; row < count; row++) {
      let slot = fnv1a(encoded[row] as Buffer) & (slotCount - 1);
      while (slots[slot] !== 0) slot = (slot + 1) & (slotCount - 1);
      slots[slot] = row + 1;
    }
    const sections: Uint8Array[] = [
      header(count, data.dimensions, offsets[count] as number, slotCount),
      bytesOf(data.weights),
      bytesOf(data.scales),
      bytesOf(offsets),
      bytesOf(slots),
      bytesOf(data.vectors),
      new Uint8Array(pad4(count * data.dimensions) - count * data.dimensions),
      ...encoded,
    ];
    return Buffer.concat(sections);
  }

  /** Reads a table written by `encode`; `file` only names the source in errors. */
  static decode(data: Buffer, file: string): WordTable {
    // Typed-array views need 4-byte alignment; a pooled Buffer may start anywhere.
    const bytes = data.byteOffset % 4 === 0 ? data : Buffer.from(data);
    if (bytes.length < HEADER_BYTES || bytes.readUInt32LE(0) !== MAGIC) {
      throw new InvalidInputError(file, "is not an IronClaw word table");
    }
    const format = bytes.readUInt32LE(4);
    if (format !== WORD_TABLE_FORMAT) {
      throw new InvalidInputError(file, `has word table format ${format}, expected ${WORD_TABLE_FORMAT}`);
    }
    const [count, dims, wordBytes, slotCount] = [8, 12, 16, 20].map((at) => bytes.readUInt32LE(at)) as [
      number,
      number,
      number,
      number,
    ];
    const expected = HEADER_BYTES + count * 12 + 4 + slotCount * 4 + pad4(count * dims) + wordBytes;
    if (bytes.length !== expected || (slotCount & (slotCount - 1)) !== 0 || slotCount < count) {
      throw new InvalidInputError(file, "is truncated or corrupt");
    }
    let at = bytes.byteOffset + HEADER_BYTES;
    const take = <T>(make: (offset: number) => T, length: number): T => {
      const view = make(at);
      at += length;
      return view;
    };
    const buf = bytes.buffer;
    const weights = take((o) => new Float32Array(buf, o, count), count * 4);
    const scales = take((o) => new Float32Array(buf, o, count), count * 4);
    const offsets = take((o) => new Uint32Array(buf, o, count + 1), (count + 1) * 4);
    const slots = take((o) => new Uint32Array(buf, o, slotCount), slotCount * 4);
    const vectors = take((o) => new Int8Array(buf, o, count * dims), pad4(count * dims));
    const words = new Uint8Array(buf, at, wordBytes);
    return new WordTable(count, dims, weights, scales, vectors, offsets, slots, words);
  }
}

const MAGIC = 0x54574349; // "ICWT" little-endian
export const WORD_TABLE_FORMAT = 2;
const HEADER_BYTES = 32;

function header(count: number, dims: number, wordBytes: number, slotCount: number): Uint8Array {
  const out = Buffer.alloc(HEADER_BYTES);
  [MAGIC, WORD_TABLE_FORMAT, count, dims, wordBytes, slotCount].forEach((v, i) => {
    out.writeUInt32LE(v, i * 4);
  });
  return out;
}

function bytesOf(view: ArrayBufferView): Uint8Array {
  return new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
}

function pad4(n: number): number {
  return (n + 3) & ~3;
}

function isAscii(word: string): boolean {
  for (let i = 0; i < word.length; i++) if (word.charCodeAt(i) > 0x7f) return false;
  return true;
}

function fnv1a(bytes: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ (bytes[i] as number), 0x01000193);
  return h >>> 0;
}

function fnv1aAscii(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
