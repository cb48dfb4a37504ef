import type { Duplex } from "node:stream";
import type { ProtocolErrorCode, ProtocolMessage } from "../contracts/cell/index.js";
// The two files themselves, not core's index: see below.
import { AsyncQueue } from "../core/async-queue.js";
import { Emitter } from "../core/emitter.js";
import { BadFrameWindow } from "./bad-frame-window.js";
import { DEFAULT_MAX_FRAME_BYTES, encodeFrame, FrameDecoder, type FrameEvent } from "./frame-codec.js";
import { InboundCheck } from "./inbound-check.js";
import { PeerIdentity } from "./peer-identity.js";
import { ChannelClosedError, isFinalReply, ReplyTimeoutError } from "./peer-replies.js";
import type { CloseInfo, MessageBody, PeerOptions, PeerStats } from "./protocol-types.js";

export { MAX_MSG_ID_STEP } from "./inbound-check.js";
export { ChannelClosedError, isFinalReply, ReplyTimeoutError } from "./peer-replies.js";
export type { CloseInfo, MessageBody, PeerOptions, PeerStats } from "./protocol-types.js";

// Deliberately free of core's index: the inmate loads this at boot, and under software emulation every module
// loaded before the first reply (pino, smol-toml, the full contract catalogue) costs a visible fraction of a
// second. Only the cell contracts and core's import-free queue and emitter are loaded.

/** How long to wait for a request's final reply (0: no limit), and what cancels it. */
export interface RequestOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

/**
 * One end of the warden ↔ inmate protocol over any duplex byte stream. Bad input from the other side is
 * answered with Error frames and never throws here; a stream that cannot be resynchronised is closed.
 */
export class ProtocolPeer {
  readonly stats: PeerStats = {
    framesIn: 0,
    framesOut: 0,
    bytesIn: 0,
    bytesOut: 0,
    badFramesIn: 0,
    answersDropped: 0,
  };
  readonly closed: Promise<CloseInfo>;
  private readonly decoder: FrameDecoder;
  private readonly maxFrameBytes: number;
  private readonly maxQueuedBytes: number;
  private readonly badFrames: BadFrameWindow;
  private nextMsgId: number;
  private readonly inbound = new InboundCheck();
  private readonly identity: PeerIdentity;
  /** Undefined until the first frame: a guest that is still booting is the start timeout's business. */
  private lastHeardAt: number | undefined;
  /** Whether the other side has said Ready: until then, startupSilenceMs is the silence it is allowed. */
  private readySeen = false;
  private closeInfo: CloseInfo | undefined;
  private resolveClosed: (info: CloseInfo) => void = () => {};
  /** The replies of each request in flight, by its msg_id. */
  private readonly waiters = new Map<number, AsyncQueue<ProtocolMessage>>();
  private readonly messages = new Emitter<[ProtocolMessage]>();
  private readonly refusals = new Emitter<[{ code: ProtocolErrorCode; message: string }]>();
  private readonly heartbeat: NodeJS.Timeout | undefined;

  constructor(
    private readonly stream: Duplex,
    private readonly options: PeerOptions,
  ) {
    this.identity = new PeerIdentity(
      options.userId,
      options.userFromHello ? "await-hello" : options.enforceUserId ? "enforce" : "any",
    );
    this.nextMsgId = options.firstMsgId ?? 0;
    this.maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.maxQueuedBytes = options.maxQueuedBytes ?? Math.max(4 * this.maxFrameBytes, 32 * 1024 * 1024);
    this.badFrames = new BadFrameWindow(options.maxBadFrames ?? 64, options.badFrameWindowMs ?? 10_000);
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
      const startup = Math.max(options.startupSilenceMs ?? 0, every * missed);
      this.heartbeat = setInterval(() => {
        const allowed = this.readySeen ? every * missed : startup;
        if (this.lastHeardAt !== undefined && Date.now() - this.lastHeardAt > allowed) {
          this.close(
            this.readySeen || allowed === every * missed
              ? `no frame from the other side for ${missed} heartbeat periods`
              : `no frame from the other side for ${allowed} ms before it was ready`,
            false,
          );
          return;
        }
        // A Heartbeat queued behind unread bytes proves nothing and only adds to them.
        if (!this.stream.writableNeedDrain) this.send({ type: "Heartbeat" });
      }, every);
      this.heartbeat.unref();
    }
  }

  get isClosed(): boolean {
    return this.closeInfo !== undefined;
  }

  /** The user this side's messages are addressed as (a blank cell's changes with its first Hello). */
  get userId(): string {
    return this.identity.userId;
  }

  /** Speak for another user from now on: the warden's side of a blank cell it hands to that user. */
  adoptUser(userId: string): void {
    this.identity.adopt(userId);
  }

  /** The msg_id the next message this side sends will carry. */
  get nextSentMsgId(): number {
    return this.nextMsgId;
  }

  /** Sends one message with a fresh msg_id; returns it as sent. Dropped silently once closed. */
  send(body: MessageBody): ProtocolMessage {
    const message = {
      user_id: this.identity.userId,
      session_id: this.options.sessionId,
      ...body,
      msg_id: this.nextMsgId++,
      timestamp: new Date().toISOString(),
    } as ProtocolMessage;
    if (!this.closeInfo) {
      const frame = encodeFrame(message, this.maxFrameBytes);
      if (this.stream.writableLength + frame.length > this.maxQueuedBytes) {
        this.abort(`the other side stopped reading (${this.stream.writableLength} bytes waiting for it)`);
        return message;
      }
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

  /**
   * Sends a request and yields every reply to it, ending after the final one (see isFinalReply). When `signal`
   * aborts while it runs, the other side is sent a Cancel for it (it still answers, with its final reply).
   */
  async *request(body: MessageBody, options: RequestOptions = {}): AsyncGenerator<ProtocolMessage> {
    const replies = new AsyncQueue<ProtocolMessage>();
    if (this.closeInfo) throw new ChannelClosedError(`channel closed: ${this.closeInfo.reason}`);
    const msgId = this.nextMsgId;
    this.waiters.set(msgId, replies);
    const timeoutMs = options.timeoutMs ?? 0;
    const timer =
      timeoutMs > 0
        ? setTimeout(
            () => replies.fail(new ReplyTimeoutError(`no final reply within ${timeoutMs} ms`)),
            timeoutMs,
          )
        : undefined;
    const { signal } = options;
    const cancel = () => this.send({ type: "Cancel", target: msgId });
    try {
      this.send(body);
      if (signal?.aborted) cancel();
      else signal?.addEventListener("abort", cancel, { once: true });
      for await (const reply of replies) {
        yield reply;
        if (isFinalReply(reply)) return;
      }
    } finally {
      signal?.removeEventListener("abort", cancel);
      if (timer) clearTimeout(timer);
      this.waiters.delete(msgId);
    }
  }

  /** Sends a request and resolves with its final reply. */
  async call(body: MessageBody, options: RequestOptions = {}): Promise<ProtocolMessage> {
    let last: ProtocolMessage | undefined;
    for await (const reply of this.request(body, options)) last = reply;
    if (!last) throw new ChannelClosedError("no reply");
    return last;
  }

  /** Every valid inbound message, replies included. Returns an unsubscribe function. */
  onMessage(listener: (message: ProtocolMessage) => void): () => void {
    return this.messages.on(listener);
  }

  /** Every inbound frame this side refused (malformed, unknown, invalid, too large), for the host's audit. */
  onRefusal(listener: (refusal: { code: ProtocolErrorCode; message: string }) => void): () => void {
    return this.refusals.on(listener);
  }

  /** Ends the stream; pending requests fail with ChannelClosedError. */
  close(reason = "closed by this side", clean = true): void {
    if (this.closeInfo) return;
    this.finish({ reason, clean });
    this.stream.end();
    // A peer that never reads must not keep the socket (and this process) alive.
    setTimeout(() => this.stream.destroy(), 2_000).unref();
  }

  /** Closes at once without waiting for queued bytes to drain: the other side is not reading them. */
  private abort(reason: string): void {
    if (this.closeInfo) return;
    this.finish({ reason, clean: false });
    this.stream.destroy();
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
    const verdict = this.inbound.check(event.message);
    if (verdict.kind === "drop") {
      this.countBad();
      return;
    }
    if (verdict.kind === "refuse") {
      this.refuse(verdict.code, verdict.text, verdict.replyTo);
      // A malformed reply to one of our requests would otherwise leave it waiting until its timeout (or forever
      // for a stream without one): it ends now, with what was wrong.
      if (verdict.answers !== undefined)
        this.waiters.get(verdict.answers)?.fail(new Error(`the reply was refused: ${verdict.text}`));
      return;
    }
    const { message } = verdict;
    const refused = this.identity.admit(message);
    if (refused) {
      if (message.type !== "Error")
        this.send({ type: "Error", code: "forbidden", message: refused, reply_to: message.msg_id });
      return;
    }
    if (message.type === "Ready") this.readySeen = true;
    if (message.reply_to !== undefined) this.waiters.get(message.reply_to)?.push(message);
    this.messages.emit(message);
  }

  private refuse(code: ProtocolErrorCode, text: string, replyTo: number | undefined): void {
    this.refusals.emit({ code, message: text });
    // Answers to bad input are a courtesy: while the other side is not reading, they are dropped, never queued,
    // so garbage cannot be turned into memory held on this side.
    if (this.stream.writableNeedDrain) this.stats.answersDropped++;
    else {
      this.send({
        type: "Error",
        code,
        message: text,
        ...(replyTo === undefined ? {} : { reply_to: replyTo }),
      });
    }
    this.countBad();
  }

  private countBad(): void {
    this.stats.badFramesIn++;
    if (this.badFrames.record() && !this.closeInfo) {
      this.close(`more than ${this.badFrames.limit} bad frames within ${this.badFrames.windowMs} ms`, false);
    }
  }
}
