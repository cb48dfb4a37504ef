/** A byte string to find and what to put in its place. */
export interface Replacement {
  find: Buffer;
  replaceWith: Buffer;
}

/**
 * Replaces every occurrence of the `find` strings in a byte stream fed piece by piece, including occurrences
 * split across pieces: the last (longest find - 1) bytes are held back until the next piece or `end`.
 * `replaced` counts the occurrences seen so far, so a caller can refuse before emitting anything.
 */
export class StreamScrubber {
  replaced = 0;
  private carry: Buffer = Buffer.alloc(0);
  private readonly hold: number;

  constructor(private readonly replacements: readonly Replacement[]) {
    this.hold = Math.max(0, ...replacements.map((r) => r.find.length - 1));
  }

  push(piece: Buffer): Buffer {
    const buffer = this.carry.length === 0 ? piece : Buffer.concat([this.carry, piece]);
    const out: Buffer[] = [];
    let at = 0;
    for (let next = this.nextMatch(buffer, at); next; next = this.nextMatch(buffer, at)) {
      out.push(buffer.subarray(at, next.index), next.replacement.replaceWith);
      at = next.index + next.replacement.find.length;
      this.replaced++;
    }
    const holdFrom = Math.max(at, buffer.length - this.hold);
    out.push(buffer.subarray(at, holdFrom));
    this.carry = Buffer.from(buffer.subarray(holdFrom));
    return Buffer.concat(out);
  }

  end(): Buffer {
    const rest = this.carry;
    this.carry = Buffer.alloc(0);
    return rest;
  }

  /** The whole of a short value (a header) at once. */
  scrub(value: Buffer): Buffer {
    return Buffer.concat([this.push(value), this.end()]);
  }

  private nextMatch(buffer: Buffer, from: number): { index: number; replacement: Replacement } | undefined {
    let best: { index: number; replacement: Replacement } | undefined;
    for (const replacement of this.replacements) {
      if (replacement.find.length === 0) continue;
      const index = buffer.indexOf(replacement.find, from);
      if (index < 0) continue;
      if (
        !best ||
        index < best.index ||
        (index === best.index && replacement.find.length > best.replacement.find.length)
      )
        best = { index, replacement };
    }
    return best;
  }
}
