import { Duplex } from "node:stream";
import type { MessageBody } from "./protocol-types.js";

// The contract's CHUNK_BYTES (contracts/cell/protocol-egress.ts), restated so a cell's boot does not load
// the contracts' index for a number; a test holds the two equal.
export const CHUNK_BYTES = 48 * 1024;

/** The egress frames one stream sends; the streams' table adds nothing but the channel's header. */
export type EgressBody = Extract<
  MessageBody,
  { type: "EgressData" | "EgressEnd" | "EgressClose" | "EgressAck" | "EgressOpen" }
>;

export interface EgressStreamLimits {
  /** Unacknowledged bytes either side may have in flight on the stream. */
  windowBytes: number;
  /** Bytes the stream may carry in each direction over its whole life. */
  maxBytesPerDirection: number;
}

/**
 * One TCP connection carried over the channel, as a Duplex: writes become EgressData frames, sent only while
 * the other side's window has room (the write's callback waits for its EgressAck otherwise, which is Node's
 * back-pressure for whoever pipes into it); frames received are pushed to the reader, and acknowledged once
 * the reader has taken them. `end()` sends EgressEnd (a half-close), `destroy()` EgressClose.
 */
export class EgressStream extends Duplex {
  private credit: number;
  /** Bytes received that this side has not acknowledged yet: never more than the window. */
  private held = 0;
  /** Of `held`, the bytes the reader has taken since the last EgressAck (sent when it asks for more). */
  private unacked = 0;
  private sent = 0;
  private received = 0;
  private blocked: { rest: Buffer; callback: (error?: Error | null) => void } | undefined;
  private remoteEnded = false;
  private localEnded = false;
  private closedByRemote = false;
  /**
   * Why the stream was closed, when it was closed for a reason (the other side's, a cap, a protocol breach).
   * A close is never an 'error' event: whoever holds the stream may not listen for one, and a cell must not be
   * able to crash the warden by resetting a connection.
   */
  closeReason: string | undefined;

  constructor(
    readonly id: number,
    private readonly sendFrame: (body: EgressBody) => void,
    private readonly limits: EgressStreamLimits,
    /** Called once, as the stream is destroyed: its number is free of it from then on. */
    private readonly onGone: () => void = () => {},
  ) {
    super({ allowHalfOpen: true, readableHighWaterMark: CHUNK_BYTES });
    this.credit = limits.windowBytes;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.sent + chunk.length > this.limits.maxBytesPerDirection) {
      callback();
      this.shut(`the stream passed its ${this.limits.maxBytesPerDirection}-byte cap`);
      return;
    }
    this.pump(chunk, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.localEnded = true;
    this.sendFrame({ type: "EgressEnd", stream: this.id });
    callback();
  }

  override _read(): void {
    if (this.unacked === 0) return;
    this.sendFrame({ type: "EgressAck", stream: this.id, bytes: this.unacked });
    this.held -= this.unacked;
    this.unacked = 0;
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    const finished = this.remoteEnded && this.localEnded;
    const reason = this.closeReason ?? error?.message;
    if (!this.closedByRemote && !finished) {
      this.sendFrame({
        type: "EgressClose",
        stream: this.id,
        ...(reason ? { reason: reason.slice(0, 500) } : {}),
      });
    }
    // A write waiting for window room is dropped with the stream; the stream is gone for its writer anyway.
    const blocked = this.blocked;
    this.blocked = undefined;
    blocked?.callback();
    this.onGone();
    callback(error);
  }

  /** Closes the stream for a reason: EgressClose carries it, and closeReason keeps it for the log. */
  shut(reason: string): void {
    this.closeReason ??= reason;
    this.destroy();
  }

  /** The other side's bytes; a reason when they break the protocol (the caller then closes the stream). */
  receiveData(bytes: Buffer): string | undefined {
    if (this.remoteEnded) return "data after the stream's end";
    this.received += bytes.length;
    if (this.received > this.limits.maxBytesPerDirection)
      return `the stream passed its ${this.limits.maxBytesPerDirection}-byte cap`;
    this.held += bytes.length;
    if (this.held > this.limits.windowBytes)
      return `more than ${this.limits.windowBytes} bytes unacknowledged`;
    this.unacked += bytes.length;
    // While the reader keeps up, acknowledge at once; otherwise _read does when it asks for more.
    if (this.push(bytes)) this._read();
    return undefined;
  }

  receiveAck(bytes: number): string | undefined {
    this.credit += bytes;
    if (this.credit > this.limits.windowBytes) return "acknowledged bytes that were never sent";
    const blocked = this.blocked;
    if (blocked) {
      this.blocked = undefined;
      this.pump(blocked.rest, blocked.callback);
    }
    return undefined;
  }

  receiveEnd(): string | undefined {
    if (this.remoteEnded) return "a second end";
    this.remoteEnded = true;
    this.push(null);
    return undefined;
  }

  receiveClose(reason: string | undefined): void {
    this.closedByRemote = true;
    this.closeReason ??= reason ?? "closed by the other side";
    this.destroy();
  }

  /** Sends what the window allows; the rest, and the write's callback, wait for the next EgressAck. */
  private pump(data: Buffer, callback: (error?: Error | null) => void): void {
    let rest = data;
    while (rest.length > 0 && this.credit > 0) {
      const size = Math.min(rest.length, CHUNK_BYTES, this.credit);
      this.sendFrame({
        type: "EgressData",
        stream: this.id,
        data: rest.subarray(0, size).toString("base64"),
      });
      this.credit -= size;
      this.sent += size;
      rest = rest.subarray(size);
    }
    if (rest.length === 0) callback();
    else this.blocked = { rest, callback };
  }
}
