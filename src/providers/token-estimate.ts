// Token counts the warden has to guess: a prompt before the call (for its reservation), a reply whose stream ended
// without `usage`, and a reply still streaming (to cut it at its reservation). Tokenizers differ per model; one
// token per three UTF-8 bytes over-counts English (about four) and code, so every guess errs on the side of a cap.
const BYTES_PER_TOKEN = 3;

/** A text in tokens (an upper-leaning estimate). */
export function estimateTextTokens(text: string): number {
  return Math.ceil(Buffer.byteLength(text, "utf8") / BYTES_PER_TOKEN);
}

/**
 * Counts a reply's output as it streams (text, tool-call names and arguments, reasoning) against the most it may
 * have. A server that ignores `max_tokens` would otherwise stream, and bill, without end: the stream reading it
 * stops once `passed` turns true. Bytes are summed before rounding, so a reply of many one-token deltas is not
 * counted once per delta.
 */
export class OutputMeter {
  private bytes = 0;

  constructor(readonly limitTokens: number) {}

  /** Adds streamed output; true once the count has passed the limit. */
  add(text: string): boolean {
    this.bytes += Buffer.byteLength(text, "utf8");
    return this.passed;
  }

  /** The output so far, in estimated tokens. */
  get tokens(): number {
    return Math.ceil(this.bytes / BYTES_PER_TOKEN);
  }

  get passed(): boolean {
    return this.tokens > this.limitTokens;
  }
}
