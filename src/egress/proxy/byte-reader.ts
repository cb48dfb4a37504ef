import type { Readable } from "node:stream";

/** The peer broke a limit or the framing: what it sent is refused, with the reason the audit records. */
export class ProtocolRefusal extends Error {
  override readonly name = "ProtocolRefusal";
  constructor(
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

// Reading pauses the stream past this many buffered bytes, so a fast peer cannot fill the warden's memory.
const HIGH_WATER = 256 * 1024;

/**
 * Pull-style reads over a byte stream (a socket, a TLS socket): a line or a head up to a delimiter with a size
 * cap, or the next bytes up to a count. Bytes read past what a caller asked for stay buffered for the next read,
 * and `detach` hands them back to the stream, so a later consumer (TLS, a pipe) sees every byte in order.
 */
export class ByteReader {
  private buffer: Buffer = Buffer.alloc(0);
  private ended = false;
  private failure: Error | undefined;
  private wake: (() => void) | undefined;
  private readonly onData = (chunk: Buffer) => {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    if (this.buffer.length > HIGH_WATER) this.stream.pause();
    this.notify();
  };
  private readonly onEnd = () => {
    this.ended = true;
    this.notify();
  };
  private readonly onError = (error: Error) => {
    this.failure = error;
    this.notify();
  };

  constructor(private readonly stream: Readable) {
    stream.on("data", this.onData);
    stream.on("end", this.onEnd);
    stream.on("close", this.onEnd);
    stream.on("error", this.onError);
  }

  /**
   * The bytes up to and including `delimiter`; undefined when the stream ends before any byte arrives (a peer
   * that closed a kept-alive connection). Throws a ProtocolRefusal past `maxBytes` or on a cut-off message.
   */
  async readUntil(delimiter: string, maxBytes: number, what: string): Promise<Buffer | undefined> {
    for (;;) {
      const at = this.buffer.indexOf(delimiter);
      if (at >= 0 && at + delimiter.length <= maxBytes) return this.take(at + delimiter.length);
      if (this.buffer.length >= maxBytes)
        throw new ProtocolRefusal(`${what} is longer than ${maxBytes} bytes`);
      if (this.failure) throw this.failure;
      if (this.ended) {
        if (this.buffer.length === 0) return undefined;
        throw new ProtocolRefusal(`the connection closed in the middle of ${what}`);
      }
      await this.more();
    }
  }

  /** Up to `maxBytes` of the next bytes (at least one); undefined at the end of the stream. */
  async readSome(maxBytes: number): Promise<Buffer | undefined> {
    for (;;) {
      if (this.buffer.length > 0) return this.take(Math.min(maxBytes, this.buffer.length));
      if (this.failure) throw this.failure;
      if (this.ended) return undefined;
      await this.more();
    }
  }

  /** Exactly `count` bytes, in pieces as they arrive; throws when the stream ends first. */
  async *readExactly(count: number, what: string): AsyncGenerator<Buffer> {
    let left = count;
    while (left > 0) {
      const piece = await this.readSome(Math.min(left, HIGH_WATER));
      if (piece === undefined) throw new ProtocolRefusal(`the connection closed in the middle of ${what}`);
      left -= piece.length;
      yield piece;
    }
  }

  /** Stops reading and puts the unread bytes back into the stream, paused, for whoever reads it next. */
  detach(): void {
    this.stream.pause();
    this.stream.off("data", this.onData);
    this.stream.off("end", this.onEnd);
    this.stream.off("close", this.onEnd);
    this.stream.off("error", this.onError);
    if (this.buffer.length > 0) this.stream.unshift(this.buffer);
    this.buffer = Buffer.alloc(0);
  }

  private take(count: number): Buffer {
    const head = this.buffer.subarray(0, count);
    this.buffer = this.buffer.subarray(count);
    if (this.buffer.length <= HIGH_WATER) this.stream.resume();
    return head;
  }

  private more(): Promise<void> {
    return new Promise((resolve) => {
      this.wake = resolve;
      this.stream.resume();
    });
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
