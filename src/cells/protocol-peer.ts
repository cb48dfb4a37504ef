import type { Duplex } from "node:stream";
import {
  PROTOCOL_MESSAGE_TYPES,
  type ProtocolErrorCode,
  type ProtocolMessage,
  protocolMessageSchema,
} from "../contracts/cell/index.js";
import { DEFAULT_MAX_FRAME_BYTES, encodeFrame, FrameDecoder, type FrameEvent } from "./frame-codec.js";

type HeaderKey = "user_id" | "session_id" | "msg_id" | "timestamp";
/** A message as a caller writes it: the peer fills in the header (ids, msg_id, timestamp). */
export type MessageBody = ProtocolMessage extends infer M
  ? M extends ProtocolMessage
    ? Omit<M, HeaderKey> & Partial<Pick<M, "user_id" | "session_id">>
    : never
  : never;

export interface PeerOptions {
  userId: string;
  sessionId: string;
  maxFrameBytes?: number;
  /** How often to send a Heartbeat; 0 turns heartbeats and the silence check off. */
  heartbeatMs?: number;
  /** The peer is declared dead after this many heartbeat periods without any frame from it. */
  missedHeartbeats?: number;
  /** Refuse inbound messages addressed to another user (the guest side sets this). */
  enforceUserId?: boolean;
  /** Consecutive bad frames tolerated before the stream is judged unrecoverable. */
  maxBadFrames?: number;
}

export interface PeerStats {
  framesIn: number;
  framesOut: number;
  bytesIn: number;
  bytesOut: number;
  badFramesIn: number;
}

export interface CloseInfo {
  reason: string;
  /** True when the close was asked for (close() or the other side ending cleanly). */
  clean: boolean;
}

export class ChannelClosedError extends Error {
  override readonly name = "ChannelClosedError";
}

export class ReplyTimeoutError extends Error {
  override readonly name = "ReplyTimeoutError";
}

/** The last message answering a request: after it no more replies to that msg_id follow. */
export function isFinalReply(message: ProtocolMessage): boolean {
  switch (message.type) {
    case "TurnComplete":
    case "FileOpResult":
    case "Error":
    case "Ready":
    case "EmbedResult":
    case "FetchResult":
      return true;
    case "ModelEvent":
      return message.event.type === "done" || message.event.type === "error";
    case "JobStatus":
      return message.status === "succeeded" || message.status === "failed";
    default:
      return false;
  }
}

interface Waiter {
  push(message: ProtocolMessage): void;
  fail(error: Error): void;
}

// Deliberately free of src/core: the inmate loads this at boot, and under software emulation every module
// loaded before the first reply (pino, smol-toml, the full contract catalogue) costs a visible fraction of a
// second. Only the cell contracts are imported.

/**
 * One end of the warden ↔ inmate protocol over any duplex byte stream. Bad input from the other side is
 * answered with Error frames and never throws here; a stream that cannot be resynchronised is closed.
 */
export class ProtocolPeer {
  readonly stats: PeerStats = { framesIn: 0, framesOut: 0, bytesIn: 0, bytesOut: 0, badFramesIn: 0 };
  readonly closed: Promise<CloseInfo>;
  private readonly decoder: FrameDecoder;
  private readonly maxFrameBytes: number;
  private nextMsgId = 0;
  private lastInboundId = -1;
  /** Undefined until the first frame: a guest that is still booting is the start timeout's business. */
  private lastHeardAt: number | undefined;
  private consecutiveBad = 0;
  private closeInfo: CloseInfo | undefined;
  private resolveClosed: (info: CloseInfo) => void = () => {};
  private readonly waiters = new Map<number, Waiter>();
  private readonly listeners = new Set<(message: ProtocolMessage) => void>();
  private readonly heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly stream: Duplex,
    private readonly options: PeerOptions,
  ) {
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.decoder = new FrameDecoder({ maxFrameBytes: this.maxFrameBytes });
    this.closed = new Promise((resolve) => {
      this.resolveClosed = resolve;
    });
    stream.on("data", (chunk: Buffer) => this.receive(chunk));
    stream.on("end", () => {
      this.finish({ reason: "the other side ended the stream", clean: true });
      // Finish the close on our side too, so the other end sees EOF instead of a half-open channel.
      this.stream.end();
    });
    stream.on("close", () => this.finish({ reason: "the stream closed", clean: false }));
    stream.on("error", (error) => this.finish({ reason: `stream error: ${error.message}`, clean: false }));
    const every = options.heartbeatMs ?? 5_000;
    if (every > 0) {
      const missed = options.missedHeartbeats ?? 3;
      this.heartbeat = setInterval(() => {
        if (this.lastHeardAt !== undefined && Date.now() - this.lastHeardAt > every * missed) {
          this.close(`no frame from the other side for ${missed} heartbeat periods`, false);
          return;
        }
        this.send({ type: "Heartbeat" });
      }, every);
      this.heartbeat.unref();
    }
  }

  get isClosed(): boolean {
    return this.closeInfo !== undefined;
  }

  /** Sends one message with a fresh msg_id; returns it as sent. Dropped silently once closed. */
  send(body: MessageBody): ProtocolMessage {
    const message = {
      user_id: this.options.userId,
      session_id: this.options.sessionId,
      ...body,
      msg_id: this.nextMsgId++,
      timestamp: new Date().toISOString(),
    } as ProtocolMessage;
    if (!this.closeInfo) {
      const frame = encodeFrame(message, this.maxFrameBytes);
      this.stats.framesOut++;
      this.stats.bytesOut += frame.length;
      this.stream.write(frame);
    }
    return message;
  }

  /** Writes bytes as they are, bypassing the codec: for conformance tests of the other side's decoder. */
  writeRaw(bytes: Uint8Array): void {
    if (!this.closeInfo) this.stream.write(bytes);
  }

  /** Sends a request and yields every reply to it, ending after the final one (see isFinalReply). */
  async *request(
    body: MessageBody,
    options: { timeoutMs?: number; onSent?: (message: ProtocolMessage) => void } = {},
  ): AsyncGenerator<ProtocolMessage> {
    const queue: ProtocolMessage[] = [];
    let failure: Error | undefined;
    let wake: (() => void) | undefined;
    const waiter: Waiter = {
      push: (message) => {
        queue.push(message);
        wake?.();
      },
      fail: (error) => {
        failure = error;
        wake?.();
      },
    };
    if (this.closeInfo) throw new ChannelClosedError(`channel closed: ${this.closeInfo.reason}`);
    const msgId = this.nextMsgId;
    this.waiters.set(msgId, waiter);
    const timeoutMs = options.timeoutMs ?? 0;
    const timer =
      timeoutMs > 0
        ? setTimeout(
            () => waiter.fail(new ReplyTimeoutError(`no final reply within ${timeoutMs} ms`)),
            timeoutMs,
          )
        : undefined;
    try {
      const sent = this.send(body);
      options.onSent?.(sent);
      for (;;) {
        const next = queue.shift();
        if (next) {
          yield next;
          if (isFinalReply(next)) return;
          continue;
        }
        if (failure) throw failure;
        await new Promise<void>((resolve) => {
          wake = resolve;
        });
        wake = undefined;
      }
    } finally {
      if (timer) clearTimeout(timer);
      this.waiters.delete(msgId);
    }
  }

  /** Sends a request and resolves with its final reply. */
  async call(body: MessageBody, options: { timeoutMs?: number } = {}): Promise<ProtocolMessage> {
    let last: ProtocolMessage | undefined;
    for await (const reply of this.request(body, options)) last = reply;
    if (!last) throw new ChannelClosedError("no reply");
    return last;
  }

  /** Every valid inbound message, replies included. Returns an unsubscribe function. */
  onMessage(listener: (message: ProtocolMessage) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Ends the stream; pending requests fail with ChannelClosedError. */
  close(reason = "closed by this side", clean = true): void {
    if (this.closeInfo) return;
    this.finish({ reason, clean });
    this.stream.end();
    // A peer that never reads must not keep the socket (and this process) alive.
    setTimeout(() => this.stream.destroy(), 2_000).unref();
  }

  private finish(info: CloseInfo): void {
    if (this.closeInfo) return;
    this.closeInfo = info;
    if (this.heartbeat) clearInterval(this.heartbeat);
    for (const waiter of this.waiters.values())
      waiter.fail(new ChannelClosedError(`channel closed: ${info.reason}`));
    this.waiters.clear();
    this.resolveClosed(info);
  }

  private receive(chunk: Buffer): void {
    if (this.closeInfo) return;
    this.lastHeardAt = Date.now();
    this.stats.bytesIn += chunk.length;
    for (const event of this.decoder.push(chunk)) {
      if (this.closeInfo) return;
      this.handleEvent(event);
    }
  }

  private handleEvent(event: FrameEvent): void {
    if (event.kind === "error") {
      this.refuse(event.code, event.message, undefined);
      if (event.fatal) this.close(`unrecoverable stream: ${event.message}`, false);
      return;
    }
    this.stats.framesIn++;
    const raw = event.message;
    const parsed = protocolMessageSchema.safeParse(raw);
    const record = typeof raw === "object" && raw !== null ? (raw as Record<string, unknown>) : {};
    const replyTo =
      Number.isSafeInteger(record.msg_id) && (record.msg_id as number) >= 0 ? record.msg_id : undefined;
    if (!parsed.success) {
      // Never answer a broken Error with an Error: two confused peers would echo each other forever.
      if (record.type === "Error") {
        this.countBad();
        return;
      }
      const known = (PROTOCOL_MESSAGE_TYPES as readonly unknown[]).includes(record.type);
      const issue = parsed.error.issues[0];
      const where = issue ? `${issue.path.join(".") || "message"}: ${issue.message}` : "invalid";
      this.refuse(
        known ? "invalid_message" : "unknown_type",
        known ? where : `unknown message type ${JSON.stringify(record.type)?.slice(0, 60)}`,
        replyTo as number | undefined,
      );
      return;
    }
    const message = parsed.data;
    if (message.msg_id <= this.lastInboundId) {
      this.refuse("invalid_message", `msg_id ${message.msg_id} does not increase`, message.msg_id);
      return;
    }
    this.lastInboundId = message.msg_id;
    if (this.options.enforceUserId && message.user_id !== this.options.userId) {
      this.consecutiveBad = 0;
      if (message.type !== "Error")
        this.send({ type: "Error", code: "forbidden", message: "wrong user", reply_to: message.msg_id });
      return;
    }
    this.consecutiveBad = 0;
    if (message.reply_to !== undefined) this.waiters.get(message.reply_to)?.push(message);
    for (const listener of this.listeners) listener(message);
  }

  private refuse(code: ProtocolErrorCode, text: string, replyTo: number | undefined): void {
    this.send({
      type: "Error",
      code,
      message: text,
      ...(replyTo === undefined ? {} : { reply_to: replyTo }),
    });
    this.countBad();
  }

  private countBad(): void {
    this.stats.badFramesIn++;
    this.consecutiveBad++;
    if (this.consecutiveBad > (this.options.maxBadFrames ?? 64)) {
      this.close("too many bad frames in a row", false);
    }
  }
}
