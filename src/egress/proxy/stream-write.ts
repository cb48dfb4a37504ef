import { once } from "node:events";
import type { Writable } from "node:stream";

/** Writes and waits for the stream to drain when its buffer is full, so a slow reader bounds the proxy's memory. */
export async function writeAll(stream: Writable, parts: readonly Buffer[]): Promise<void> {
  for (const part of parts) {
    if (stream.destroyed) throw new Error("the connection closed while the proxy was writing to it");
    if (!stream.write(part)) await Promise.race([once(stream, "drain"), once(stream, "close")]);
  }
}
