import type { ProtocolMessage } from "../contracts/cell/index.js";
import type { EgressStreamLimits } from "./egress-stream.js";
import { EgressStream } from "./egress-stream.js";
import type { MessageBody } from "./protocol-types.js";

export interface EgressStreamsOptions extends Partial<EgressStreamLimits> {
  /** Sends one message on the channel (ProtocolPeer.send). */
  send: (body: MessageBody) => void;
  /**
   * The warden's side: a stream the cell opened, to serve. Without it this side opens streams (the inmate)
   * and an EgressOpen from the other side is refused.
   */
  accept?: (stream: EgressStream) => void;
  /** Streams open at once (default 32); one more is refused with EgressClose. */
  maxStreams?: number;
}

type EgressMessage = Extract<
  ProtocolMessage,
  { type: "EgressOpen" | "EgressData" | "EgressEnd" | "EgressClose" | "EgressAck" }
>;

export const EGRESS_DEFAULTS = {
  maxStreams: 32,
  // The contract's EGRESS_WINDOW_BYTES, the most one EgressAck may acknowledge (a test holds them equal).
  windowBytes: 256 * 1024,
  maxBytesPerDirection: 256 * 1024 * 1024,
};

/**
 * The egress streams of one channel, by number. The inmate opens them (numbers count up from 1), the warden
 * accepts them. A frame for a stream that was never opened is answered with an Error frame; one for a stream
 * already closed is dropped (it crossed the close on the way). A frame that breaks the stream's rules (past its
 * window or cap, data after its end) closes that stream only, never the channel or the process.
 */
export class EgressStreams {
  private readonly open = new Map<number, EgressStream>();
  /** The highest stream number seen or used: a smaller one that is not open was closed, not invented. */
  private highest = 0;
  private readonly limits: EgressStreamLimits;
  private readonly maxStreams: number;

  constructor(private readonly options: EgressStreamsOptions) {
    this.limits = {
      windowBytes: options.windowBytes ?? EGRESS_DEFAULTS.windowBytes,
      maxBytesPerDirection: options.maxBytesPerDirection ?? EGRESS_DEFAULTS.maxBytesPerDirection,
    };
    this.maxStreams = options.maxStreams ?? EGRESS_DEFAULTS.maxStreams;
  }

  get size(): number {
    return this.open.size;
  }

  /** The inmate's side: a new stream announced to the warden, or undefined when as many are open as allowed. */
  openStream(): EgressStream | undefined {
    if (this.open.size >= this.maxStreams || this.highest >= 2 ** 31 - 1) return undefined;
    const stream = this.track(++this.highest);
    this.options.send({ type: "EgressOpen", stream: stream.id });
    return stream;
  }

  /** Takes an egress message; false for any other message, which is someone else's. */
  receive(message: ProtocolMessage): boolean {
    if (!isEgress(message)) return false;
    if (message.type === "EgressOpen") {
      this.accept(message);
      return true;
    }
    const stream = this.open.get(message.stream);
    if (!stream) {
      if (message.stream > this.highest) this.refuse(message, `no egress stream ${message.stream} is open`);
      return true;
    }
    let breach: string | undefined;
    if (message.type === "EgressData") breach = stream.receiveData(Buffer.from(message.data, "base64"));
    else if (message.type === "EgressAck") breach = stream.receiveAck(message.bytes);
    else if (message.type === "EgressEnd") breach = stream.receiveEnd();
    else stream.receiveClose(message.reason);
    if (breach) stream.shut(breach);
    return true;
  }

  /** Closes every stream (the cell is stopping, the channel closed). */
  closeAll(reason: string): void {
    for (const stream of [...this.open.values()]) stream.shut(reason);
  }

  private accept(message: Extract<EgressMessage, { type: "EgressOpen" }>): void {
    if (!this.options.accept) {
      this.refuse(message, "this side does not accept egress streams");
      return;
    }
    if (message.stream <= this.highest) {
      this.refuse(message, `egress stream ${message.stream} was opened before`);
      return;
    }
    this.highest = message.stream;
    if (this.open.size >= this.maxStreams) {
      this.options.send({
        type: "EgressClose",
        stream: message.stream,
        reason: `at most ${this.maxStreams} egress streams may be open at once`,
      });
      return;
    }
    this.options.accept(this.track(message.stream));
  }

  private track(id: number): EgressStream {
    const stream = new EgressStream(
      id,
      (body) => this.options.send(body),
      this.limits,
      () => this.open.delete(id),
    );
    this.open.set(id, stream);
    return stream;
  }

  private refuse(message: EgressMessage, text: string): void {
    this.options.send({ type: "Error", code: "not_found", message: text, reply_to: message.msg_id });
  }
}

function isEgress(message: ProtocolMessage): message is EgressMessage {
  return (
    message.type === "EgressOpen" ||
    message.type === "EgressData" ||
    message.type === "EgressEnd" ||
    message.type === "EgressClose" ||
    message.type === "EgressAck"
  );
}
