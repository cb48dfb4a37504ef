/**
 * The default hard maximum size of one frame's JSON body (seed 003 §12): large enough for a model call with a
 * long conversation and for a fetched page (base64) through the warden's proxies, small enough that a hostile
 * guest cannot make the host buffer much per cell.
 */
export const DEFAULT_MAX_FRAME_BYTES = 8 * 1024 * 1024;

const HEADER_BYTES = 4;

/** What the decoder found in the byte stream, in order. */
export type FrameEvent =
  | { kind: "frame"; message: unknown; bytes: number }
  | { kind: "error"; code: "malformed_frame" | "frame_too_large"; message: string; fatal: boolean };

export interface FrameDecoderOptions {
  maxFrameBytes?: number;
  /**
   * An oversize frame is skipped byte by byte, so the stream stays usable. A declared length beyond this is
   * taken as garbage (the stream is out of step) and is fatal instead of waiting for gigabytes to go by.
   */
  maxSkipBytes?: number;
}

export class FrameTooLargeError extends Error {
  override readonly name = "FrameTooLargeError";
}

/** One message as a frame: 4-byte big-endian body length, then the UTF-8 JSON body. */
export function encodeFrame(message: unknown, maxFrameBytes = DEFAULT_MAX_FRAME_BYTES): Buffer {
  const body = Buffer.from(JSON.stringify(message), "utf8");
  if (body.length > maxFrameBytes) {
    throw new FrameTooLargeError(`frame of ${body.length} bytes exceeds the ${maxFrameBytes}-byte maximum`);
  }
  const frame = Buffer.allocUnsafe(HEADER_BYTES + body.length);
  frame.writeUInt32BE(body.length, 0);
  body.copy(frame, HEADER_BYTES);
  return frame;
}

/**
 * A streaming decoder: feed it chunks as they arrive, in any split. It never throws and holds at most one
 * frame in memory; a frame that is not JSON is reported and skipped, an oversize one is reported and its body
 * discarded as it streams past. After a fatal event the decoder ignores all further input.
 */
export class FrameDecoder {
  readonly maxFrameBytes: number;
  readonly maxSkipBytes: number;
  private pending: Buffer[] = [];
  private pendingBytes = 0;
  private skipRemaining = 0;
  private dead = false;

  constructor(options: FrameDecoderOptions = {}) {
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.maxSkipBytes = options.maxSkipBytes ?? Math.max(64 * 1024 * 1024, this.maxFrameBytes * 16);
  }

  get failed(): boolean {
    return this.dead;
  }

  /** Bytes of an incomplete frame held back, waiting for more input. */
  get buffered(): number {
    return this.pendingBytes;
  }

  push(chunk: Uint8Array): FrameEvent[] {
    if (this.dead || chunk.length === 0) return [];
    let data = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
    if (this.skipRemaining > 0) {
      const skipped = Math.min(this.skipRemaining, data.length);
      this.skipRemaining -= skipped;
      data = data.subarray(skipped);
      if (data.length === 0) return [];
    }
    this.pending.push(data);
    this.pendingBytes += data.length;
    return this.drain();
  }

  private drain(): FrameEvent[] {
    const events: FrameEvent[] = [];
    let buffer = this.pending.length === 1 ? (this.pending[0] as Buffer) : Buffer.concat(this.pending);
    while (buffer.length >= HEADER_BYTES) {
      const length = buffer.readUInt32BE(0);
      if (length > this.maxFrameBytes) {
        const fatal = length > this.maxSkipBytes;
        events.push({
          kind: "error",
          code: "frame_too_large",
          message: fatal
            ? `declared frame length ${length} is not plausible: the stream is out of step`
            : `frame of ${length} bytes exceeds the ${this.maxFrameBytes}-byte maximum`,
          fatal,
        });
        if (fatal) {
          this.dead = true;
          buffer = Buffer.alloc(0);
          break;
        }
        const available = buffer.length - HEADER_BYTES;
        const skipped = Math.min(length, available);
        this.skipRemaining = length - skipped;
        buffer = buffer.subarray(HEADER_BYTES + skipped);
        continue;
      }
      if (buffer.length < HEADER_BYTES + length) break;
      const body = buffer.subarray(HEADER_BYTES, HEADER_BYTES + length);
      buffer = buffer.subarray(HEADER_BYTES + length);
      events.push(parseBody(body));
    }
    // Copy the remainder so a small tail does not pin a large chunk in memory.
    this.pending = buffer.length > 0 ? [Buffer.from(buffer)] : [];
    this.pendingBytes = buffer.length;
    return events;
  }
}

function parseBody(body: Buffer): FrameEvent {
  if (body.length === 0) {
    return { kind: "error", code: "malformed_frame", message: "empty frame", fatal: false };
  }
  try {
    const text = new TextDecoder("utf-8", { fatal: true }).decode(body);
    return { kind: "frame", message: JSON.parse(text) as unknown, bytes: body.length };
  } catch (error) {
    return {
      kind: "error",
      code: "malformed_frame",
      message: `frame body is not UTF-8 JSON: ${(error as Error).message}`.slice(0, 300),
      fatal: false,
    };
  }
}
