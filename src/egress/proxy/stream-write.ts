import type { Writable } from "node:stream";

/**
 * Writes `parts` as one write (on a TLS socket each write is a record, and a frame split over several records
 * waits on Nagle and delayed ACKs), then waits for the stream to drain when its buffer is full, so a slow reader
 * bounds the proxy's memory.
 */
export async function writeAll(stream: Writable, parts: readonly Buffer[]): Promise<void> {
  if (stream.destroyed) throw new Error("the connection closed while the proxy was writing to it");
  if (stream.write(parts.length === 1 ? parts[0] : Buffer.concat(parts))) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      stream.off("drain", done);
      stream.off("close", done);
      resolve();
    };
    stream.on("drain", done);
    stream.on("close", done);
  });
}
