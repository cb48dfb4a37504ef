import { once } from "node:events";
import type { ServerResponse } from "node:http";
import { ok } from "../contracts/index.js";
import { envelopeError } from "../http/index.js";
import type { EventStore } from "./event-store.js";
import { ledgerHttpErrorOf } from "./http-errors.js";
import { type SubscribeOptions, subscribe } from "./subscription.js";

export interface EventStreamOptions extends Pick<SubscribeOptions, "after" | "filter" | "pollIntervalMs"> {
  /** Comment lines keep proxies and idle timeouts from cutting a quiet stream (default 15 s). */
  heartbeatMs?: number;
  /** Aborts when the client goes away or the server shuts down. */
  signal: AbortSignal;
}

/**
 * Writes a subscription as Server-Sent Events: `id:` is the event's position, so a client that reconnects
 * with Last-Event-ID resumes exactly after the last event it received. Each `data:` is the envelope around
 * one recorded event, like every other ledger response; a failure ends the stream with an `error` event.
 */
export async function writeEventStream(res: ServerResponse, store: EventStore, options: EventStreamOptions) {
  res.writeHead(200, {
    "content-type": "text/event-stream; charset=utf-8",
    "cache-control": "no-cache",
    // The socket is not reused after a stream: a server shutting down would otherwise wait for it to idle out.
    connection: "close",
    "x-accel-buffering": "no",
  });
  res.write(": ledger event stream\n\n");
  const heartbeat = setInterval(() => res.write(": keepalive\n\n"), options.heartbeatMs ?? 15_000);
  try {
    const events = subscribe(store, {
      after: options.after ?? 0,
      ...(options.filter ? { filter: options.filter } : {}),
      ...(options.pollIntervalMs === undefined ? {} : { pollIntervalMs: options.pollIntervalMs }),
      signal: options.signal,
    });
    for await (const event of events) {
      const frame = `id: ${event.position}\nevent: ledger-event\ndata: ${JSON.stringify(ok(event))}\n\n`;
      if (!res.write(frame)) await once(res, "drain", { signal: options.signal });
    }
  } catch (error) {
    if (!options.signal.aborted) {
      res.write(`event: error\ndata: ${JSON.stringify(envelopeError(ledgerHttpErrorOf(error)))}\n\n`);
    }
  } finally {
    clearInterval(heartbeat);
    res.end();
  }
}
