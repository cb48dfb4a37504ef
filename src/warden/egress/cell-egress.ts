import type { Duplex } from "node:stream";
import type { CellHandle } from "../../cells/index.js";
import { EgressStreams } from "../../channel/index.js";
import type { Logger } from "../../core/index.js";

/** Serves one connection a tool in the cell opened to its HTTPS proxy: the egress proxy engine. */
export type EgressConnectionHandler = (client: Duplex) => Promise<void>;

export interface CellEgressOptions {
  serve: EgressConnectionHandler;
  logger: Logger;
  /** Connections open at once (default 32); one more is refused with EgressClose. */
  maxStreams?: number;
}

/**
 * The warden's side of a cell's HTTPS proxy: each egress stream the cell opens is a Duplex handed to `serve`,
 * and ended (or reset) once `serve` is done with it. A handler that throws costs its connection only. Returns
 * a function that stops every stream, for when the cell stops.
 */
export function serveCellEgress(cell: CellHandle, options: CellEgressOptions): () => void {
  const streams = new EgressStreams({
    send: (body) => cell.send(body),
    ...(options.maxStreams === undefined ? {} : { maxStreams: options.maxStreams }),
    accept: (stream) => {
      options
        .serve(stream)
        .catch((error: Error) => {
          options.logger.warn({ err: error, stream: stream.id }, "an egress connection failed");
          stream.shut("the warden's proxy failed");
        })
        .finally(() => {
          // What the handler wrote is sent before the end (end waits for the window); then the slot is free.
          if (!stream.destroyed) stream.end(() => stream.destroy());
        });
    },
  });
  const off = cell.onEvent((message) => {
    streams.receive(message);
  });
  return () => {
    off();
    streams.closeAll("the cell stopped");
  };
}
