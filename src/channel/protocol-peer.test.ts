import { afterEach, describe, expect, it } from "vitest";
import { pipePair } from "../../test/support/pipe-pair.js";
import type { ProtocolMessage } from "../contracts/cell/index.js";
import { encodeFrame } from "./frame-codec.js";
import { ChannelClosedError, MAX_MSG_ID_STEP, ProtocolPeer, ReplyTimeoutError } from "./protocol-peer.js";

/** Two connected duplex streams, like the two ends of a socket. */

const peers: ProtocolPeer[] = [];
function peerPair(options: { heartbeatMs?: number } = {}): [ProtocolPeer, ProtocolPeer] {
  const [a, b] = pipePair();
  const host = new ProtocolPeer(a, { userId: "ada", sessionId: "s1", heartbeatMs: options.heartbeatMs ?? 0 });
  const guest = new ProtocolPeer(b, { userId: "ada", sessionId: "s1", heartbeatMs: 0, enforceUserId: true });
  peers.push(host, guest);
  return [host, guest];
}

function nextMessage(peer: ProtocolPeer, type: ProtocolMessage["type"]): Promise<ProtocolMessage> {
  return new Promise((resolve) => {
    const off = peer.onMessage((m) => {
      if (m.type === type) {
        off();
        resolve(m);
      }
    });
  });
}

afterEach(() => {
  for (const peer of peers.splice(0)) peer.close();
});

describe("protocol peer", () => {
  it("numbers messages from 0 upwards per direction and fills the header", () => {
    const [host] = peerPair();
    const first = host.send({ type: "Heartbeat" });
    const second = host.send({ type: "Heartbeat" });
    expect([first.msg_id, second.msg_id]).toEqual([0, 1]);
    expect(first).toMatchObject({ user_id: "ada", session_id: "s1" });
    expect(first.timestamp).toMatch(/Z$/);
  });

  it("correlates a request with every reply until the final one", async () => {
    const [host, guest] = peerPair();
    guest.onMessage((m) => {
      if (m.type !== "UserMessage") return;
      guest.send({ type: "StreamDelta", delta: "Hel", reply_to: m.msg_id });
      guest.send({ type: "Heartbeat" });
      guest.send({ type: "StreamDelta", delta: "lo", reply_to: m.msg_id });
      guest.send({
        type: "TurnComplete",
        text: "Hello",
        usage: { input_tokens: 1, output_tokens: 2 },
        stop_reason: "stop",
        reply_to: m.msg_id,
      });
    });
    const replies: string[] = [];
    for await (const m of host.request({ type: "UserMessage", text: "hi" })) replies.push(m.type);
    expect(replies).toEqual(["StreamDelta", "StreamDelta", "TurnComplete"]);
  });

  it("answers a schema-invalid message with invalid_message naming its msg_id", async () => {
    const [host, guest] = peerPair();
    const error = nextMessage(host, "Error");
    host.writeRaw(
      encodeFrame({
        type: "UserMessage",
        user_id: "ada",
        session_id: "s",
        msg_id: 7,
        timestamp: "x",
        text: "",
      }),
    );
    expect(await error).toMatchObject({ code: "invalid_message", reply_to: 7 });
    expect(guest.isClosed).toBe(false);
  });

  it("ends a request at once when its reply is malformed, with what was wrong, instead of waiting for ever", async () => {
    const [host, guest] = peerPair();
    guest.onMessage((m) => {
      if (m.type !== "UserMessage") return;
      // A reply whose usage breaks the contract: refused on arrival, so no valid final reply will ever come.
      guest.writeRaw(
        encodeFrame({
          type: "TurnComplete",
          user_id: "ada",
          session_id: "s1",
          msg_id: 1,
          timestamp: "2026-01-01T00:00:00Z",
          reply_to: m.msg_id,
          text: "x",
          usage: { input_tokens: -1, output_tokens: 0 },
          stop_reason: "stop",
        }),
      );
    });
    const replies = (async () => {
      for await (const _ of host.request({ type: "UserMessage", text: "hi" })) {
        /* none arrives */
      }
    })();
    await expect(replies).rejects.toThrow(
      /the reply was refused: usage.input_tokens: must be a non-negative/,
    );
    expect(host.isClosed).toBe(false);
  });

  it("answers an unknown type with unknown_type", async () => {
    const [host] = peerPair();
    const error = nextMessage(host, "Error");
    host.writeRaw(encodeFrame({ type: "Teleport", msg_id: 3 }));
    expect(await error).toMatchObject({ code: "unknown_type", reply_to: 3 });
  });

  it("refuses a msg_id that does not increase", async () => {
    const [host] = peerPair();
    const header = { user_id: "ada", session_id: "s", timestamp: "2026-01-01T00:00:00Z" };
    host.writeRaw(encodeFrame({ type: "Heartbeat", ...header, msg_id: 5 }));
    const error = nextMessage(host, "Error");
    host.writeRaw(encodeFrame({ type: "Heartbeat", ...header, msg_id: 5 }));
    expect(await error).toMatchObject({ code: "invalid_message", message: "msg_id 5 does not increase" });
  });

  it("keeps its channel after a forged msg_id far ahead, and resynchronises after one close ahead", async () => {
    const [host, guest] = peerPair();
    const header = { user_id: "ada", session_id: "s", timestamp: "2026-01-01T00:00:00Z" };
    // The host's refusals travel to the guest as Error frames.
    const errors: string[] = [];
    guest.onMessage((m) => {
      if (m.type === "Error") errors.push(m.message);
    });
    guest.send({ type: "Heartbeat" }); // msg_id 0
    await nextMessage(host, "Heartbeat");
    // Far ahead: refused, and the mark stays where the real sender is.
    guest.writeRaw(encodeFrame({ type: "Heartbeat", ...header, msg_id: Number.MAX_SAFE_INTEGER }));
    guest.send({ type: "Heartbeat" }); // msg_id 1
    await nextMessage(host, "Heartbeat");
    expect(errors).toEqual([`msg_id ${Number.MAX_SAFE_INTEGER} jumps more than ${MAX_MSG_ID_STEP} past 0`]);
    // Close ahead: accepted, so the real sender's next message is refused once, and the one after passes.
    guest.writeRaw(encodeFrame({ type: "Heartbeat", ...header, msg_id: 1000 }));
    guest.send({ type: "Heartbeat" }); // msg_id 2: refused, the mark resynchronises to it
    guest.send({ type: "Heartbeat" }); // msg_id 3: accepted
    const received: number[] = [];
    await new Promise<void>((resolve) => {
      host.onMessage((m) => {
        if (m.type === "Heartbeat") received.push(m.msg_id);
        if (m.msg_id === 3) resolve();
      });
    });
    expect(received).toEqual([1000, 3]);
    expect(errors.slice(1)).toEqual(["msg_id 2 does not increase"]);
    expect(host.isClosed).toBe(false);
  });

  it("closes on bad frames counted over a window, even with valid frames between them", async () => {
    const [a, b] = pipePair();
    const host = new ProtocolPeer(a, { userId: "ada", sessionId: "s", heartbeatMs: 0, maxBadFrames: 8 });
    const guest = new ProtocolPeer(b, { userId: "ada", sessionId: "s", heartbeatMs: 0 });
    peers.push(host, guest);
    for (let i = 0; i < 9; i++) {
      guest.writeRaw(Buffer.from([0, 0, 0, 1, 0x7b]));
      guest.send({ type: "Heartbeat" });
    }
    const info = await host.closed;
    expect(info).toEqual({ reason: "more than 8 bad frames within 10000 ms", clean: false });
    expect(host.stats.badFramesIn).toBe(9);
    // Eight in the window are tolerated: the same pattern one short of the limit leaves the channel open.
    const [c, d] = pipePair();
    const patient = new ProtocolPeer(c, { userId: "ada", sessionId: "s", heartbeatMs: 0, maxBadFrames: 8 });
    const other = new ProtocolPeer(d, { userId: "ada", sessionId: "s", heartbeatMs: 0 });
    peers.push(patient, other);
    for (let i = 0; i < 8; i++) {
      other.writeRaw(Buffer.from([0, 0, 0, 1, 0x7b]));
      other.send({ type: "Heartbeat" });
    }
    await nextMessage(other, "Error");
    await new Promise((r) => setTimeout(r, 20));
    expect(patient.stats.badFramesIn).toBe(8);
    expect(patient.isClosed).toBe(false);
  });

  it("drops answers to bad frames and then closes when the other side never reads", async () => {
    // The guest end is a bare stream nobody reads: everything the host writes stays queued.
    const [a, b] = pipePair();
    const host = new ProtocolPeer(a, {
      userId: "ada",
      sessionId: "s",
      heartbeatMs: 0,
      maxBadFrames: 100_000,
      maxQueuedBytes: 256 * 1024,
    });
    peers.push(host);
    b.on("error", () => {}); // the unread end fails once the host gives up on it
    const garbage = Buffer.alloc(5 * 5000);
    for (let i = 0; i < 5000; i++) garbage.set([0, 0, 0, 1, 0x7b], i * 5);
    b.write(garbage);
    await new Promise((r) => setTimeout(r, 50));
    expect(host.stats.badFramesIn).toBe(5000);
    expect(host.stats.answersDropped).toBeGreaterThan(0);
    expect(a.writableLength).toBeLessThan(256 * 1024);
    // Requests it makes itself are still bounded: past the queue limit the channel closes instead of growing.
    const big = "x".repeat(64 * 1024);
    for (let i = 0; i < 10 && !host.isClosed; i++) host.send({ type: "UserMessage", text: big });
    const info = await host.closed;
    expect(info.reason).toMatch(/^the other side stopped reading \(\d+ bytes waiting for it\)$/);
    expect(info.clean).toBe(false);
  });

  it("refuses a message for another user when it guards one", async () => {
    const [host] = peerPair();
    const error = nextMessage(host, "Error");
    host.send({ type: "FileOpRequest", op: "list", path: ".", user_id: "mallory" });
    expect(await error).toMatchObject({ code: "forbidden" });
  });

  it("closes the stream when the length prefix is absurd, failing pending requests", async () => {
    const [host, guest] = peerPair();
    const pending = host.call({ type: "FileOpRequest", op: "list", path: "." });
    guest.writeRaw(Buffer.from([0xff, 0xff, 0xff, 0xfe]));
    await expect(pending).rejects.toBeInstanceOf(ChannelClosedError);
    expect((await host.closed).clean).toBe(false);
  });

  it("gives up on a reply after the timeout", async () => {
    const [host] = peerPair();
    await expect(
      host.call({ type: "JobTrigger", job_id: "nightly" }, { timeoutMs: 50 }),
    ).rejects.toBeInstanceOf(ReplyTimeoutError);
  });

  it("declares a silent peer dead after missed heartbeats, but not before it has spoken", async () => {
    const [a, b] = pipePair();
    const host = new ProtocolPeer(a, { userId: "ada", sessionId: "s", heartbeatMs: 20, missedHeartbeats: 2 });
    peers.push(host);
    await new Promise((r) => setTimeout(r, 120));
    expect(host.isClosed).toBe(false);
    b.write(
      encodeFrame({
        type: "Heartbeat",
        user_id: "ada",
        session_id: "s",
        msg_id: 0,
        timestamp: "2026-01-01T00:00:00Z",
      }),
    );
    const info = await host.closed;
    expect(info.reason).toContain("heartbeat");
  });

  it("allows a starting peer its startup silence until it says Ready, then only the heartbeat rule", async () => {
    const frame = (body: Record<string, unknown>, msgId: number) =>
      encodeFrame({
        user_id: "ada",
        session_id: "s",
        msg_id: msgId,
        timestamp: "2026-01-01T00:00:00Z",
        ...body,
      });
    const [a, b] = pipePair();
    const options = { userId: "ada", sessionId: "s", heartbeatMs: 20, missedHeartbeats: 2 };
    const host = new ProtocolPeer(a, { ...options, startupSilenceMs: 60_000 });
    peers.push(host);
    b.write(frame({ type: "Heartbeat" }, 0));
    // Four heartbeat rules' worth of silence while it loads: still open.
    await new Promise((r) => setTimeout(r, 160));
    expect(host.isClosed).toBe(false);
    b.write(frame({ type: "Ready", handler: "agent", agents: [] }, 1));
    const info = await host.closed;
    expect(info.reason).toBe("no frame from the other side for 2 heartbeat periods");

    const [c, d] = pipePair();
    const starting = new ProtocolPeer(c, { ...options, startupSilenceMs: 100 });
    peers.push(starting);
    d.write(frame({ type: "Heartbeat" }, 0));
    expect((await starting.closed).reason).toBe(
      "no frame from the other side for 100 ms before it was ready",
    );
  });

  it("does not answer a broken Error frame with another Error", async () => {
    const [host, guest] = peerPair();
    let errors = 0;
    host.onMessage((m) => {
      if (m.type === "Error") errors++;
    });
    host.writeRaw(encodeFrame({ type: "Error", msg_id: 1 }));
    guest.send({ type: "Heartbeat" });
    await nextMessage(host, "Heartbeat");
    expect(errors).toBe(0);
    expect(guest.stats.badFramesIn).toBe(1);
  });
});
