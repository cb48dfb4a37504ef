import type { Duplex } from "node:stream";
import { type CloseInfo, ProtocolPeer } from "../channel/index.js";
import type { ProtocolMessage } from "../contracts/cell/index.js";
import { answerFileOp, answerJob, answerQuery, answerTurn } from "./cell-answers.js";
import type { CellHandler, GuestContext } from "./cell-handler.js";
import { CellEgress } from "./egress-listener.js";

export interface CellServerOptions {
  /** The cell's user; for a blank cell, a stand-in until the warden's first Hello names the user. */
  userId: string;
  brainRoot: string;
  /**
   * A blank cell from the pool: its brain appears at brainRoot only when the warden hands it to a user, so
   * the handler is built after the first Hello, which names that user; no work is taken before it.
   */
  blank?: boolean;
  maxFrameBytes?: number;
  heartbeatMs?: number;
}

/** What the server offers the handler it makes: the env its tools add, which the warden's Hello may change. */
export interface CellServices {
  /** The HTTPS proxy's and the trust bundle's variables and the placeholders; empty while egress is off. */
  toolEnv: () => Record<string, string>;
}

/**
 * The handler, or how to make it once the channel is up: the agent handler needs the channel itself, because
 * its model calls, provider embeddings and fetches go to the warden over it.
 */
export type HandlerSource =
  | CellHandler
  | ((peer: ProtocolPeer, services: CellServices) => Promise<CellHandler>);

/**
 * The inmate's side of the channel: announces itself with a Heartbeat (the host's readiness signal), builds
 * the handler, then dispatches each request to it (requests that arrive meanwhile wait for it). Hello is
 * answered with Ready once the handler serves; Cancel aborts the request it names; Shutdown ends the channel.
 * A handler that throws becomes an Error reply, never a dead cell; one that cannot be built is a fatal Error.
 * A blank cell builds its handler only after the first Hello (see CellServerOptions.blank). Resolves when the
 * channel closes, after the handler has flushed.
 */
export async function serveCell(
  stream: Duplex,
  source: HandlerSource,
  options: CellServerOptions,
): Promise<CloseInfo> {
  const peer = new ProtocolPeer(stream, {
    userId: options.userId,
    sessionId: "cell",
    enforceUserId: true,
    userFromHello: options.blank === true,
    ...(options.maxFrameBytes === undefined ? {} : { maxFrameBytes: options.maxFrameBytes }),
    heartbeatMs: options.heartbeatMs ?? 5_000,
    // The warden may be busy or paused in a debugger: the cell keeps serving until the channel really closes.
    missedHeartbeats: Number.POSITIVE_INFINITY,
  });
  const abort = new AbortController();
  const egress = new CellEgress((body) => peer.send(body));
  const context: GuestContext = {
    userId: options.userId,
    brainRoot: options.brainRoot,
    signal: abort.signal,
    writeRaw: (bytes) => peer.writeRaw(bytes),
  };
  const running = new Set<Promise<void>>();
  const cancels = new Map<number, AbortController>();
  let handler: CellHandler | undefined = typeof source === "function" ? undefined : source;
  let assign: (() => void) | undefined;
  const assigned = options.blank
    ? new Promise<void>((resolve, reject) => {
        assign = resolve;
        void peer.closed.then(() => reject(new Error("the channel closed before the cell had a user")));
      })
    : Promise.resolve();
  const built: Promise<CellHandler> =
    typeof source === "function"
      ? assigned
          .then(() => source(peer, { toolEnv: () => egress.toolEnv() }))
          .then((h) => {
            handler = h;
            return h;
          })
      : Promise.resolve(source);
  built.catch((error: Error) => {
    peer.send({
      type: "Error",
      code: "internal",
      message: `the cell could not start: ${error.message}`.slice(0, 2000),
      fatal: true,
    });
    peer.close("the handler could not start", false);
  });
  peer.onMessage((message) => {
    if (isReplyToUs(message) || message.type === "Heartbeat" || egress.receive(message)) return;
    if (assign && message.type === "Hello") {
      // The peer has taken the user from this Hello; the brain is in place before the warden sends it.
      context.userId = message.user_id;
      assign();
      assign = undefined;
    }
    if (message.type === "Cancel") {
      cancels.get(message.target)?.abort();
      return;
    }
    if (message.type === "Shutdown") {
      peer.close(message.reason ?? "shutdown requested");
      return;
    }
    const own = new AbortController();
    cancels.set(message.msg_id, own);
    const scoped = { ...context, signal: AbortSignal.any([abort.signal, own.signal]) };
    // A Hello that turns the HTTPS proxy on is answered once the listener is up and the tools' env names it.
    const proxy = message.type === "Hello" && message.egress ? egress.configure(message.egress) : undefined;
    const task = (
      handler && !proxy
        ? dispatch(peer, handler, scoped, message)
        : Promise.all([built, proxy]).then(([h]) => dispatch(peer, h, scoped, message))
    ).catch((error: unknown) => {
      peer.send({
        type: "Error",
        user_id: message.user_id,
        session_id: message.session_id,
        code: "internal",
        message: String((error as Error).message ?? error).slice(0, 500) || "handler failed",
        reply_to: message.msg_id,
      });
    });
    running.add(task);
    void task.finally(() => {
      running.delete(task);
      cancels.delete(message.msg_id);
    });
  });
  peer.send({ type: "Heartbeat" });
  void built.then(
    (h) => h.attach?.((status) => peer.send({ type: "JobStatus", ...status })),
    () => {},
  );
  const info = await peer.closed;
  abort.abort();
  egress.close();
  await Promise.allSettled([...running]);
  const ready = await built.catch(() => undefined);
  await ready?.close?.();
  return info;
}

/** Replies to the requests this side made (model calls, fetches, command) reach their waiter, not the dispatcher. */
function isReplyToUs(message: ProtocolMessage): boolean {
  return (
    message.type === "ModelEvent" ||
    message.type === "EmbedResult" ||
    message.type === "FetchResult" ||
    message.type === "CommandResult" ||
    message.type === "IntegrationResult" ||
    (message.type === "Error" && message.reply_to !== undefined)
  );
}

async function dispatch(
  peer: ProtocolPeer,
  handler: CellHandler,
  context: GuestContext,
  message: ProtocolMessage,
): Promise<void> {
  switch (message.type) {
    case "UserMessage":
      return answerTurn(peer, handler, context, message);
    case "FileOpRequest":
      return answerFileOp(peer, handler, context, message);
    case "JobTrigger":
      return answerJob(peer, handler, context, message);
    case "QueryRequest":
      return answerQuery(peer, handler, context, message);
    case "Hello":
      await handler.onHello?.(message);
      peer.send({
        type: "Ready",
        user_id: message.user_id,
        session_id: message.session_id,
        reply_to: message.msg_id,
        handler: handler.name,
        agents: handler.describe?.().agents ?? [],
        ...(handler.describe?.().defaultAgent ? { default_agent: handler.describe?.().defaultAgent } : {}),
      });
      return;
    case "Heartbeat":
    case "Error":
      return;
    default:
      peer.send({
        type: "Error",
        user_id: message.user_id,
        session_id: message.session_id,
        code: "unknown_type",
        message: `the inmate does not accept ${message.type}`,
        reply_to: message.msg_id,
      });
  }
}
