import WebSocket from "ws";
import type { Logger } from "../../core/index.js";
import { DEFAULT_RETRY_POLICY, retryDelayMs, sleep } from "../../providers/index.js";

/** How one connection ended, and so what the keeper does next. */
export type SocketEnd =
  /** The platform asked for a new connection (Slack's `disconnect`, Discord's RECONNECT): open one, after `afterMs`. */
  | { next: "reconnect"; why: string; afterMs?: number }
  /** The connection failed or dropped: open a new one after the backoff. */
  | { next: "backoff"; why: string }
  /** It can never work as configured (a refused token, an intent not enabled): stop, and say why. */
  | { next: "stop"; why: string };

export interface SocketKeeperOptions {
  /** What the log calls this connection (`slack:team Socket Mode`). */
  name: string;
  /**
   * Opens one connection and resolves once it has ended, never rejecting for the platform's sake (a rejection is
   * taken as a drop). Calls `ready()` when the connection works, so the backoff starts over; ends soon after
   * `signal` aborts.
   */
  connect(signal: AbortSignal, ready: () => void): Promise<SocketEnd>;
  logger: Logger;
  /** The first wait after a drop; each further failure in a row doubles it. Default 1 s. */
  initialDelayMs?: number;
  /** The longest wait between attempts. Default 60 s. */
  maxDelayMs?: number;
  /** [0, 1); tests pin it. */
  random?: () => number;
}

/**
 * The wait before attempt `failures + 1`: `initialMs` doubled per failure in a row, capped at `maxMs`, and drawn
 * from its upper half, so that many wardens dropped at once by a platform do not all come back at the same instant.
 */
export function backoffDelay(
  failures: number,
  initialMs: number,
  maxMs: number,
  random: () => number,
): number {
  // The shared retry policy's own backoff, with no end to the retries: a socket is wanted as long as the warden runs.
  const policy = {
    ...DEFAULT_RETRY_POLICY,
    maxRetries: Number.POSITIVE_INFINITY,
    baseDelayMs: initialMs,
    maxDelayMs: maxMs,
  };
  return retryDelayMs(policy, Math.min(failures, 30) + 1, undefined, random) ?? maxMs;
}

/**
 * Keeps a platform's socket open for as long as the warden runs (Slack's Socket Mode, Discord's gateway): each
 * connection that ends is followed by another, at once when the platform asked for it, after a capped, growing
 * backoff when it failed, and never again when it cannot work. Runs in the background, so a platform that is down
 * holds up nothing else; `stop` ends the connection and the waits, and resolves once they have.
 */
export class SocketKeeper {
  private readonly aborter = new AbortController();
  private readonly initialMs: number;
  private readonly maxMs: number;
  private readonly random: () => number;
  private running: Promise<void> | undefined;

  constructor(private readonly options: SocketKeeperOptions) {
    this.initialMs = options.initialDelayMs ?? 1_000;
    this.maxMs = options.maxDelayMs ?? 60_000;
    this.random = options.random ?? Math.random;
  }

  /** Starts connecting; once only. */
  start(): void {
    this.running ??= this.loop();
  }

  /** Ends the connection and any wait; resolves when the keeper has stopped for good. */
  async stop(): Promise<void> {
    this.aborter.abort();
    await this.running;
  }

  private async loop(): Promise<void> {
    const { signal } = this.aborter;
    const log = this.options.logger;
    let failures = 0;
    while (!signal.aborted) {
      let wasReady = false;
      let end: SocketEnd;
      try {
        end = await this.options.connect(signal, () => {
          wasReady = true;
          failures = 0;
        });
      } catch (error) {
        end = { next: "backoff", why: error instanceof Error ? error.message : String(error) };
      }
      if (signal.aborted) return;
      if (end.next === "stop") {
        log.error(
          { connection: this.options.name, why: end.why },
          "connection stopped: it cannot work as configured",
        );
        return;
      }
      // A platform that asks for a new connection before the last one ever worked is failing too: back off.
      const backoff =
        end.next === "backoff" || !wasReady
          ? backoffDelay(failures++, this.initialMs, this.maxMs, this.random)
          : 0;
      const waitMs = Math.max(backoff, end.next === "reconnect" ? (end.afterMs ?? 0) : 0);
      if (end.next === "backoff")
        log.warn({ connection: this.options.name, why: end.why, retryInMs: waitMs }, "connection lost");
      else log.info({ connection: this.options.name, why: end.why, retryInMs: waitMs }, "reconnecting");
      // A stop ends the wait early; the loop then sees the signal.
      await sleep(waitMs, signal).catch(() => undefined);
    }
  }
}

/** One open connection, as its frame handler sees it. */
export interface SocketSession {
  /** Sends `frame` as JSON; dropped when the socket is no longer open (its end is already on the way). */
  send(frame: unknown): void;
  /** Closes the connection (with `code`, 1000 by default); the connection ends as `end` says. */
  end(end: SocketEnd, code?: number): void;
}

export interface HoldSocketOptions {
  url: string;
  signal: AbortSignal;
  logger: Logger;
  /** Each text frame, parsed; a frame that is not JSON is skipped. A throw is logged, and the connection stays. */
  onFrame(frame: unknown, session: SocketSession): void;
  /** How a close the platform made ends the connection (Discord's close codes); a drop by default. */
  onClose?(code: number, reason: string): SocketEnd | undefined;
  /**
   * Sends a WebSocket ping this often, and takes the connection for dead when the last one got no pong: a
   * connection the network dropped without a word (half-open) is noticed, not listened to forever.
   */
  pingIntervalMs?: number;
}

/** Largest frame taken: Slack's and Discord's events are kilobytes; a runaway frame must not grow memory. */
const MAX_FRAME_BYTES = 4 * 1024 * 1024;
/** How long a closing handshake may take before the socket is cut. */
const CLOSE_GRACE_MS = 2_000;

/**
 * Holds one WebSocket connection for a SocketKeeper: resolves with how it ended once it has closed — as the
 * handler ended it, as `onClose` reads the platform's close, or as a drop — and closes it when `signal` aborts.
 * Never rejects.
 */
export function holdSocket(options: HoldSocketOptions): Promise<SocketEnd> {
  const { signal, logger } = options;
  return new Promise((resolve) => {
    let socket: WebSocket;
    try {
      socket = new WebSocket(options.url, { handshakeTimeout: 10_000, maxPayload: MAX_FRAME_BYTES });
    } catch (error) {
      resolve({ next: "backoff", why: error instanceof Error ? error.message : String(error) });
      return;
    }
    let ended: SocketEnd | undefined;
    let cut: NodeJS.Timeout | undefined;
    let pinger: NodeJS.Timeout | undefined;
    const session: SocketSession = {
      send: (frame) => {
        if (socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
      },
      end: (end, code = 1000) => {
        ended ??= end;
        if (socket.readyState === WebSocket.CLOSED) return;
        socket.close(code);
        cut ??= setTimeout(() => socket.terminate(), CLOSE_GRACE_MS);
      },
    };
    const abort = () => session.end({ next: "backoff", why: "stopped" });
    signal.addEventListener("abort", abort, { once: true });
    if (options.pingIntervalMs !== undefined) {
      const everyMs = options.pingIntervalMs;
      socket.on("open", () => {
        let answered = true;
        socket.on("pong", () => {
          answered = true;
        });
        pinger = setInterval(() => {
          if (!answered) return session.end({ next: "backoff", why: "no pong: the connection is dead" });
          answered = false;
          socket.ping();
        }, everyMs);
      });
    }
    socket.on("message", (data, isBinary) => {
      if (isBinary) return;
      let frame: unknown;
      try {
        frame = JSON.parse(data.toString());
      } catch {
        logger.warn({ url: redactUrl(options.url) }, "a frame that is not JSON was skipped");
        return;
      }
      try {
        options.onFrame(frame, session);
      } catch (err) {
        logger.error({ err }, "a frame could not be handled");
      }
    });
    socket.on("error", (error) => {
      ended ??= { next: "backoff", why: error.message };
    });
    socket.on("close", (code, reason) => {
      clearTimeout(cut);
      clearInterval(pinger);
      signal.removeEventListener("abort", abort);
      resolve(
        ended ??
          options.onClose?.(code, reason.toString()) ?? {
            next: "backoff",
            why: `the socket closed (${code}${reason.length > 0 ? ` ${reason.toString()}` : ""})`,
          },
      );
    });
    if (signal.aborted) abort();
  });
}

/** A connection URL without its query, which may carry a ticket. */
function redactUrl(url: string): string {
  return url.split("?")[0] ?? url;
}
