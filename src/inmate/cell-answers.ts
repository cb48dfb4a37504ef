import { randomUUID } from "node:crypto";
import type { ProtocolPeer } from "../channel/index.js";
import type { FileOpRequest, JobTrigger, QueryRequest, UserMessage } from "../contracts/cell/index.js";
import type { CellHandler, GuestContext, QueryOutcome } from "./cell-handler.js";

// How the inmate answers each kind of request: the handler's events become protocol messages, and every
// request gets its final reply even when the handler ends early.

export async function answerTurn(
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
        ...(event.failure ? { failure: event.failure } : {}),
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

export async function answerFileOp(
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

export async function answerJob(
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

export async function answerQuery(
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
