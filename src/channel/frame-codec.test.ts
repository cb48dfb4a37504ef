import { randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { encodeFrame, FrameDecoder, type FrameEvent, FrameTooLargeError } from "./frame-codec.js";

const frames = (events: FrameEvent[]) => events.filter((e) => e.kind === "frame").map((e) => e.message);

describe("frame codec", () => {
  it("round-trips messages split at every possible byte boundary", () => {
    const bytes = Buffer.concat([encodeFrame({ a: 1 }), encodeFrame({ b: "två" }), encodeFrame([1, 2, 3])]);
    for (let split = 0; split <= bytes.length; split++) {
      const decoder = new FrameDecoder();
      const events = [...decoder.push(bytes.subarray(0, split)), ...decoder.push(bytes.subarray(split))];
      expect(frames(events)).toEqual([{ a: 1 }, { b: "två" }, [1, 2, 3]]);
    }
  });

  it("decodes a stream fed one byte at a time", () => {
    const bytes = Buffer.concat([encodeFrame({ hello: "world" }), encodeFrame({ n: 2 })]);
    const decoder = new FrameDecoder();
    const events = [...bytes].flatMap((b) => decoder.push(Buffer.from([b])));
    expect(frames(events)).toEqual([{ hello: "world" }, { n: 2 }]);
    expect(decoder.buffered).toBe(0);
  });

  it("refuses to encode a message over the maximum", () => {
    expect(() => encodeFrame({ text: "x".repeat(100) }, 64)).toThrow(FrameTooLargeError);
  });

  it("reports a body that is not JSON and keeps decoding the next frame", () => {
    const junk = Buffer.from("{not json");
    const header = Buffer.alloc(4);
    header.writeUInt32BE(junk.length);
    const decoder = new FrameDecoder();
    const events = decoder.push(Buffer.concat([header, junk, encodeFrame({ ok: true })]));
    expect(events[0]).toMatchObject({ kind: "error", code: "malformed_frame", fatal: false });
    expect(frames(events)).toEqual([{ ok: true }]);
  });

  it("reports invalid UTF-8 and an empty frame as malformed", () => {
    const decoder = new FrameDecoder();
    const events = decoder.push(Buffer.from([0, 0, 0, 2, 0xc3, 0x28, 0, 0, 0, 0]));
    expect(events.map((e) => e.kind === "error" && e.code)).toEqual(["malformed_frame", "malformed_frame"]);
  });

  it("skips an oversize frame as it streams past, then decodes the next one", () => {
    const decoder = new FrameDecoder({ maxFrameBytes: 16 });
    const big = Buffer.alloc(4 + 100, 0x41);
    big.writeUInt32BE(100);
    const first = decoder.push(big.subarray(0, 30));
    expect(first).toEqual([expect.objectContaining({ code: "frame_too_large", fatal: false })]);
    expect(decoder.push(big.subarray(30))).toEqual([]);
    expect(frames(decoder.push(encodeFrame({ after: 1 })))).toEqual([{ after: 1 }]);
  });

  it("gives up on a length prefix no sane peer would send, and ignores what follows", () => {
    const decoder = new FrameDecoder();
    const events = decoder.push(Buffer.from([0xff, 0xff, 0xff, 0xff, 1, 2, 3]));
    expect(events).toEqual([expect.objectContaining({ code: "frame_too_large", fatal: true })]);
    expect(decoder.failed).toBe(true);
    expect(decoder.push(encodeFrame({ late: 1 }))).toEqual([]);
  });

  it("never throws and never holds more than one frame on random bytes", () => {
    for (let round = 0; round < 300; round++) {
      const decoder = new FrameDecoder({ maxFrameBytes: 4096, maxSkipBytes: 64 * 1024 });
      let remaining = 2 + Math.floor(Math.random() * 40);
      while (remaining-- > 0 && !decoder.failed) {
        const chunk = randomBytes(Math.floor(Math.random() * 300));
        const events = decoder.push(chunk);
        for (const e of events) expect(["frame", "error"]).toContain(e.kind);
        expect(decoder.buffered).toBeLessThanOrEqual(4096 + 4);
      }
    }
  });

  it("still decodes valid frames interleaved with random garbage frames", () => {
    const decoder = new FrameDecoder({ maxFrameBytes: 1024 });
    const parts: Buffer[] = [];
    for (let i = 0; i < 50; i++) {
      const garbage = randomBytes(Math.floor(Math.random() * 100));
      const header = Buffer.alloc(4);
      header.writeUInt32BE(garbage.length);
      parts.push(header, garbage, encodeFrame({ i }));
    }
    const all = Buffer.concat(parts);
    const events: FrameEvent[] = [];
    for (let at = 0; at < all.length; at += 37) events.push(...decoder.push(all.subarray(at, at + 37)));
    const decoded = frames(events).filter(
      (m): m is { i: number } => typeof m === "object" && m !== null && "i" in m,
    );
    expect(decoded.map((m) => m.i)).toEqual([...Array(50).keys()]);
  });
});
