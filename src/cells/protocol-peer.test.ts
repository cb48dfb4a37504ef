import { Duplex, PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import type { ProtocolMessage } from "../contracts/cell/index.js";
import { encodeFrame } from "./frame-codec.js";
import { ChannelClosedError, ProtocolPeer, ReplyTimeoutError } from "./protocol-peer.js";

/** Two connected duplex streams, like the two ends of a socket. */
function pipePair(): [Duplex, Duplex] {
  const aToB = new PassThrough();
  const bToA = new PassThrough();
  return [Duplex.from({ readable: bToA, writable: aToB }), Duplex.from({ readable: aToB, writable: bToA })];
}

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
