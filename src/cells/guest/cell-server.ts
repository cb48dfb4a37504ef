import { randomUUID } from "node:crypto";
import type { Duplex } from "node:stream";
import type {
  FileOpRequest,
  JobTrigger,
  ProtocolMessage,
  QueryRequest,
  UserMessage,
} from "../../contracts/cell/index.js";
import { type CloseInfo, ProtocolPeer } from "../protocol-peer.js";
import type { CellHandler, GuestContext, QueryOutcome } from "./cell-handler.js";

export interface CellServerOptions {
  userId: string;
  brainRoot: string;
  maxFrameBytes?: number;
  heartbeatMs?: number;
}

/**
 * The handler, or how to make it once the channel is up: the agent handler needs the channel itself, because
 * its model calls, provider embeddings and fetches go to the warden over it.
 */
export type HandlerSource = CellHandler | ((peer: ProtocolPeer) => Promise<CellHandler>);

/**
 * The inmate's side of the channel: announces itself with a Heartbeat (the host's readiness signal), builds
 * the handler, then dispatches each request to it (requests that arrive meanwhile wait for it). Hello is
 * answered with Ready once the handler serves; Cancel aborts the request it names; Shutdown ends the channel.
 * A handler that throws becomes an Error reply, never a dead cell; one that cannot be built is a fatal Error.
 * Resolves when the channel closes, after the handler has flushed.
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
    ...(options.maxFrameBytes === undefined ? {} : { maxFrameBytes: options.maxFrameBytes }),
    heartbeatMs: options.heartbeatMs ?? 5_000,
    // The warden may be busy or paused in a debugger: the cell keeps serving until the channel really closes.
    missedHeartbeats: Number.POSITIVE_INFINITY,
  });
  const abort = new AbortController();
  const context: GuestContext = {
    userId: options.userId,
    brainRoot: options.brainRoot,
    signal: abort.signal,
    writeRaw: (bytes) => peer.writeRaw(bytes),
  };
  const running = new Set<Promise<void>>();
  const cancels = new Map<number, AbortController>();
  let handler: CellHandler | undefined = typeof source === "function" ? undefined : source;
  const built: Promise<CellHandler> =
    typeof source === "function"
      ? source(peer).then((h) => {
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
    if (isReplyToUs(message)) return;
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
    const task = (
      handler
        ? dispatch(peer, handler, scoped, message)
        : built.then((h) => dispatch(peer, h, scoped, message))
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
  await Promise.allSettled([...running]);
  const ready = await built.catch(() => undefined);
  await ready?.close?.();
  return info;
}

/** Replies to the requests this side made (model calls, fetches) reach their waiter, not the dispatcher. */
function isReplyToUs(message: ProtocolMessage): boolean {
  return (
    message.type === "ModelEvent" ||
    message.type === "EmbedResult" ||
    message.type === "FetchResult" ||
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

async function answerTurn(
  peer: ProtocolPeer,
  handler: CellHandler,
  context: GuestContext,
  message: UserMessage,
) {
  const head = { user_id: message.user_id, session_id: message.session_id, reply_to: message.msg_id };
  const turnId = randomUUID();
  let text = "";
  for await (const event of handler.onUserMessage(message, context)) {
    if (event.kind === "delta") {
      text += event.delta;
      peer.send({ type: "StreamDelta", ...head, turn_id: turnId, delta: event.delta });
    } else if (event.kind === "tool") {
      peer.send({
        type: "ToolResult",
        ...head,
        turn_id: turnId,
        call_id: event.callId,
        tool: event.tool,
        isError: event.isError,
        content: event.content,
        ...(event.outcome ? { outcome: event.outcome } : {}),
        ...(event.args !== undefined ? { args: event.args } : {}),
        ...(event.durationMs !== undefined ? { duration_ms: Math.round(event.durationMs) } : {}),
      });
    } else {
      peer.send({
        type: "TurnComplete",
        ...head,
        turn_id: turnId,
        text: event.text,
        usage: event.usage ?? { input_tokens: 0, output_tokens: 0 },
        stop_reason: event.stopReason ?? "stop",
        ...(event.error ? { error: event.error } : {}),
      });
      return;
    }
  }
  // A handler that ends without a final event still owes the warden the end of the turn.
  peer.send({
    type: "TurnComplete",
    ...head,
    turn_id: turnId,
    text,
    usage: { input_tokens: 0, output_tokens: 0 },
    stop_reason: context.signal.aborted ? "aborted" : "error",
    error: "the turn ended without a final answer",
  });
}

async function answerFileOp(
  peer: ProtocolPeer,
  handler: CellHandler,
  context: GuestContext,
  request: FileOpRequest,
) {
  const outcome = await handler.onFileOp(request, context);
  peer.send({
    type: "FileOpResult",
    user_id: request.user_id,
    session_id: request.session_id,
    reply_to: request.msg_id,
    op: request.op,
    path: request.path,
    ...outcome,
  });
}

async function answerJob(
  peer: ProtocolPeer,
  handler: CellHandler,
  context: GuestContext,
  trigger: JobTrigger,
) {
  const head = { user_id: trigger.user_id, session_id: trigger.session_id, reply_to: trigger.msg_id };
  let finished = false;
  for await (const progress of handler.onJobTrigger(trigger, context)) {
    peer.send({ type: "JobStatus", ...head, job_id: trigger.job_id, ...progress });
    finished = progress.status === "succeeded" || progress.status === "failed";
    if (finished) return;
  }
  peer.send({
    type: "JobStatus",
    ...head,
    job_id: trigger.job_id,
    status: "failed",
    error: "the job ended without a result",
  });
}

async function answerQuery(
  peer: ProtocolPeer,
  handler: CellHandler,
  context: GuestContext,
  request: QueryRequest,
) {
  const outcome: QueryOutcome = handler.onQuery
    ? await handler.onQuery(request, context)
    : { error: { code: "unsupported", message: `the ${handler.name} handler answers no queries` } };
  peer.send({
    type: "QueryResult",
    user_id: request.user_id,
    session_id: request.session_id,
    reply_to: request.msg_id,
    ...outcome,
  });
}
