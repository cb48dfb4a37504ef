import { afterEach, describe, expect, it } from "vitest";
import { pipePair } from "../../../test/support/pipe-pair.js";
import type { CellHandle } from "../../cells/index.js";
import { type EgressStream, EgressStreams, ProtocolPeer } from "../../channel/index.js";
import { createLogger } from "../../core/index.js";
import { serveCellEgress } from "./cell-egress.js";

// The warden's side of a cell's proxy over a real channel: the cell's end opens streams as its listener would,
// the warden's end hands each to a handler standing in for the proxy engine.

const peers: ProtocolPeer[] = [];
afterEach(() => {
  for (const peer of peers.splice(0)) peer.close();
});

function channel(serve: (client: EgressStream) => Promise<void>) {
  const [a, b] = pipePair();
  const wardenPeer = new ProtocolPeer(a, { userId: "ada", sessionId: "cell", heartbeatMs: 0 });
  const cellPeer = new ProtocolPeer(b, {
    userId: "ada",
    sessionId: "cell",
    heartbeatMs: 0,
    enforceUserId: true,
  });
  peers.push(wardenPeer, cellPeer);
  const cell = {
    send: (body) => wardenPeer.send(body),
    onEvent: (listener) => wardenPeer.onMessage(listener),
  } as Pick<CellHandle, "send" | "onEvent"> as CellHandle;
  const stop = serveCellEgress(cell, {
    serve: (client) => serve(client as EgressStream),
    logger: createLogger("test", { level: "silent" }),
  });
  const tools = new EgressStreams({ send: (body) => cellPeer.send(body) });
  cellPeer.onMessage((m) => tools.receive(m));
  return { tools, stop };
}

function answer(stream: EgressStream): Promise<{ text: string; reason: string | undefined }> {
  let text = "";
  stream.on("data", (d: Buffer) => {
    text += d.toString();
  });
  return new Promise((resolve) => stream.once("close", () => resolve({ text, reason: stream.closeReason })));
}

describe("a cell's proxy streams on the warden's side", () => {
  it("hands each stream to the engine and ends it in order once the engine is done", async () => {
    const { tools } = channel(async (client) => {
      client.write("HTTP/1.1 403 Forbidden\r\n\r\n");
    });
    const stream = tools.openStream();
    if (!stream) throw new Error("no stream");
    const done = answer(stream);
    stream.end("CONNECT nowhere:443 HTTP/1.1\r\n\r\n");
    expect(await done).toEqual({ text: "HTTP/1.1 403 Forbidden\r\n\r\n", reason: undefined });
  });

  it("resets only the connection whose engine failed, with a reason that names no internals", async () => {
    const { tools } = channel(async (client) => {
      if (client.id === 1) throw new Error("upstream certificate for 10.0.0.7 expired");
      client.end("fine");
    });
    const [first, second] = [tools.openStream(), tools.openStream()];
    if (!first || !second) throw new Error("no stream");
    const answers = await Promise.all([answer(first), answer(second)]);
    expect(answers[0]).toEqual({ text: "", reason: "the warden's proxy failed" });
    expect(answers[1]?.text).toBe("fine");
  });

  it("closes every open stream when the cell stops", async () => {
    const { tools, stop } = channel(() => new Promise(() => {}));
    const stream = tools.openStream();
    if (!stream) throw new Error("no stream");
    const done = answer(stream);
    await new Promise((r) => setTimeout(r, 20));
    stop();
    expect((await done).reason).toBe("the cell stopped");
  });
});
