import type { FastifyReply, FastifyRequest } from "fastify";

/**
 * Takes over the reply for a server-sent event stream. The returned signal aborts when the client goes away,
 * so whoever produces the events can stop the work behind them.
 */
export function openEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
): {
  write(event: string | undefined, data: unknown): void;
  end(): void;
  signal: AbortSignal;
} {
  const abort = new AbortController();
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache, no-transform",
    connection: "keep-alive",
    "x-accel-buffering": "no",
  });
  raw.flushHeaders?.();
  request.raw.on("close", () => abort.abort());
  raw.on("close", () => abort.abort());
  return {
    signal: abort.signal,
    write(event, data) {
      if (raw.writableEnded || raw.destroyed) return;
      raw.write(
        `${event ? `event: ${event}\n` : ""}data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`,
      );
    },
    end() {
      if (!raw.writableEnded) raw.end();
    },
  };
}
