import { once } from "node:events";
import { afterEach, describe, expect, it } from "vitest";
import { pipePair } from "../../test/support/pipe-pair.js";
import { EGRESS_CHUNK_BYTES, EGRESS_WINDOW_BYTES, type ProtocolMessage } from "../contracts/cell/index.js";
import { CHUNK_BYTES, type EgressStream } from "./egress-stream.js";
import { EGRESS_DEFAULTS, EgressStreams, type EgressStreamsOptions } from "./egress-streams.js";
import { ProtocolPeer } from "./protocol-peer.js";

// The egress streams over a real channel: the inmate's table opens streams, the warden's accepts them and hands
// each to a handler (here an echo, or one the test drives), and bytes flow both ways with back-pressure.

const peers: ProtocolPeer[] = [];
afterEach(() => {
  for (const peer of peers.splice(0)) peer.close();
});

interface Ends {
  cell: EgressStreams;
  warden: EgressStreams;
  cellPeer: ProtocolPeer;
  wardenPeer: ProtocolPeer;
  accepted: EgressStream[];
}

function connect(
  options: Omit<EgressStreamsOptions, "send" | "accept"> = {},
  serve?: (s: EgressStream) => void,
): Ends {
  const [a, b] = pipePair();
  const wardenPeer = new ProtocolPeer(a, { userId: "ada", sessionId: "cell", heartbeatMs: 0 });
  const cellPeer = new ProtocolPeer(b, {
    userId: "ada",
    sessionId: "cell",
    heartbeatMs: 0,
    enforceUserId: true,
  });
  peers.push(wardenPeer, cellPeer);
  const accepted: EgressStream[] = [];
  const warden = new EgressStreams({
    ...options,
    send: (body) => wardenPeer.send(body),
    accept: (stream) => {
      accepted.push(stream);
      serve?.(stream);
    },
  });
  const cell = new EgressStreams({ ...options, send: (body) => cellPeer.send(body) });
  wardenPeer.onMessage((m) => warden.receive(m));
  cellPeer.onMessage((m) => cell.receive(m));
  return { cell, warden, cellPeer, wardenPeer, accepted };
}

const echo = (stream: EgressStream) => stream.pipe(stream);

/** Everything the stream delivers until its end; unlike for-await, leaves the stream open for writing. */
function readAll(stream: EgressStream): Promise<Buffer> {
  const parts: Buffer[] = [];
  stream.on("data", (part: Buffer) => parts.push(part));
  return new Promise((resolve) => stream.once("end", () => resolve(Buffer.concat(parts))));
}

const closed = (stream: EgressStream) =>
  stream.closed ? Promise.resolve() : once(stream, "close").then(() => undefined);

function nextOf(peer: ProtocolPeer, type: ProtocolMessage["type"]): Promise<ProtocolMessage> {
  return new Promise((resolve) => {
    const off = peer.onMessage((m) => {
      if (m.type === type) {
        off();
        resolve(m);
      }
    });
  });
}

describe("egress streams", () => {
  it("keeps the channel's chunk and window equal to the contract's", () => {
    expect(CHUNK_BYTES).toBe(EGRESS_CHUNK_BYTES);
    expect(EGRESS_DEFAULTS.windowBytes).toBe(EGRESS_WINDOW_BYTES);
  });

  it("carries 1 MiB each way through an echo, in order, and ends both halves", async () => {
    const ends = connect({}, echo);
    const stream = ends.cell.openStream();
    if (!stream) throw new Error("no stream");
    const sent = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < sent.length; i++) sent[i] = (i * 7919) % 251;
    const received = readAll(stream);
    stream.end(sent);
    expect((await received).equals(sent)).toBe(true);
    await closed(stream);
    expect(ends.cell.size).toBe(0);
    await new Promise((r) => setImmediate(r));
    expect(ends.warden.size).toBe(0);
  });

  it("lets one side end its half and still read the other's answer", async () => {
    const ends = connect({}, (s) => {
      void readAll(s).then((asked) => s.end(Buffer.from(`answer to ${asked}`)));
    });
    const stream = ends.cell.openStream();
    if (!stream) throw new Error("no stream");
    const answer = readAll(stream);
    stream.end("question");
    expect((await answer).toString()).toBe("answer to question");
  });

  it("holds a fast sender to the window while nobody reads, and delivers everything once they do", async () => {
    let served: EgressStream | undefined;
    const ends = connect({}, (s) => {
      served = s;
    });
    const stream = ends.cell.openStream();
    if (!stream) throw new Error("no stream");
    await nextOf(ends.wardenPeer, "EgressOpen");
    const total = 2 * 1024 * 1024;
    let writes = 0;
    const writer = (async () => {
      for (let i = 0; i < total / 65536; i++) {
        if (!stream.write(Buffer.alloc(65536, i % 256))) await once(stream, "drain");
        writes++;
      }
      stream.end();
    })();
    // The warden's handler reads nothing: the cell's writer stalls at the window, the channel carries no more.
    await new Promise((r) => setTimeout(r, 200));
    const inFlight = ends.cellPeer.stats.bytesOut;
    expect(writes).toBeLessThan(total / 65536);
    expect(served?.readableLength ?? 0).toBeLessThanOrEqual(EGRESS_DEFAULTS.windowBytes);
    await new Promise((r) => setTimeout(r, 100));
    expect(ends.cellPeer.stats.bytesOut).toBe(inFlight);
    if (!served) throw new Error("not accepted");
    const got = await readAll(served);
    await writer;
    expect(got.length).toBe(total);
  });

  it("refuses a stream past the cap of open streams, and opens again once one closes", async () => {
    const ends = connect({ maxStreams: 2 });
    const first = ends.cell.openStream();
    ends.cell.openStream();
    expect(ends.cell.openStream()).toBeUndefined();
    await new Promise((r) => setTimeout(r, 20));
    expect(ends.accepted).toHaveLength(2);
    first?.destroy();
    await closed(first as EgressStream);
    const third = ends.cell.openStream();
    expect(third?.id).toBe(3);
    // A cell that ignores its own table and opens a third anyway is told no with EgressClose.
    const sent: unknown[] = [];
    const strict = new EgressStreams({ maxStreams: 1, send: (b) => sent.push(b), accept: () => {} });
    const open = (stream: number, msg_id: number) =>
      ({
        type: "EgressOpen",
        stream,
        user_id: "ada",
        session_id: "cell",
        msg_id,
        timestamp: "",
      }) as ProtocolMessage;
    strict.receive(open(1, 0));
    strict.receive(open(2, 1));
    expect(sent).toEqual([
      { type: "EgressClose", stream: 2, reason: "at most 1 egress streams may be open at once" },
    ]);
  });

  it("answers a frame for a stream never opened with an Error, and drops one for a stream already closed", async () => {
    const ends = connect({}, echo);
    const errors: ProtocolMessage[] = [];
    ends.cellPeer.onMessage((m) => {
      if (m.type === "Error") errors.push(m);
    });
    const data = ends.cellPeer.send({ type: "EgressData", stream: 99, data: "aGk=" });
    await new Promise((r) => setTimeout(r, 20));
    expect(errors).toMatchObject([
      { code: "not_found", message: "no egress stream 99 is open", reply_to: data.msg_id },
    ]);
    const stream = ends.cell.openStream();
    stream?.destroy();
    await new Promise((r) => setTimeout(r, 20));
    ends.cellPeer.send({ type: "EgressData", stream: 1, data: "aGk=" });
    ends.cellPeer.send({ type: "Heartbeat" });
    await new Promise((r) => setTimeout(r, 20));
    expect(errors).toHaveLength(1);
    expect(ends.wardenPeer.isClosed).toBe(false);
  });

  it("closes only the stream that sends past its window or its cap, with the reason", async () => {
    const ends = connect({ maxBytesPerDirection: 100 * 1024 });
    const closes: ProtocolMessage[] = [];
    ends.cellPeer.onMessage((m) => {
      if (m.type === "EgressClose") closes.push(m);
    });
    // A hostile cell ignores the window: 6 × 48 KiB unacknowledged, nobody reading on the warden's side.
    ends.cellPeer.send({ type: "EgressOpen", stream: 1 });
    const chunk = Buffer.alloc(EGRESS_CHUNK_BYTES).toString("base64");
    for (let i = 0; i < 6; i++) ends.cellPeer.send({ type: "EgressData", stream: 1, data: chunk });
    await new Promise((r) => setTimeout(r, 50));
    expect(closes[0]).toMatchObject({ stream: 1, reason: "the stream passed its 102400-byte cap" });
    const roomy = connect();
    const roomyCloses: ProtocolMessage[] = [];
    roomy.cellPeer.onMessage((m) => {
      if (m.type === "EgressClose") roomyCloses.push(m);
    });
    roomy.cellPeer.send({ type: "EgressOpen", stream: 1 });
    for (let i = 0; i < 6; i++) roomy.cellPeer.send({ type: "EgressData", stream: 1, data: chunk });
    await new Promise((r) => setTimeout(r, 50));
    expect(roomyCloses[0]).toMatchObject({ stream: 1, reason: "more than 262144 bytes unacknowledged" });
    expect(roomy.accepted[0]?.destroyed).toBe(true);
    expect(roomy.wardenPeer.isClosed).toBe(false);
  });

  it("refuses an EgressOpen on the side that only opens, and a reused stream number", async () => {
    const ends = connect({}, echo);
    const errors: string[] = [];
    ends.wardenPeer.onMessage((m) => {
      if (m.type === "Error") errors.push(m.message);
    });
    ends.cellPeer.onMessage((m) => {
      if (m.type === "Error") errors.push(m.message);
    });
    ends.wardenPeer.send({ type: "EgressOpen", stream: 5 });
    ends.cellPeer.send({ type: "EgressOpen", stream: 7 });
    ends.cellPeer.send({ type: "EgressOpen", stream: 7 });
    await new Promise((r) => setTimeout(r, 20));
    expect(errors.sort()).toEqual([
      "egress stream 7 was opened before",
      "this side does not accept egress streams",
    ]);
  });

  it("tells the other side why a stream was closed", async () => {
    const ends = connect({}, (s) => s.shut("upstream refused"));
    const stream = ends.cell.openStream();
    if (!stream) throw new Error("no stream");
    await closed(stream);
    expect(stream.closeReason).toBe("upstream refused");
  });
});
