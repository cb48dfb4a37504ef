import type { ProtocolMessage } from "../contracts/cell/index.js";

export class ChannelClosedError extends Error {
  override readonly name = "ChannelClosedError";
}

export class ReplyTimeoutError extends Error {
  override readonly name = "ReplyTimeoutError";
}

/** The last message answering a request: after it no more replies to that msg_id follow. */
export function isFinalReply(message: ProtocolMessage): boolean {
  switch (message.type) {
    case "TurnComplete":
    case "FileOpResult":
    case "Error":
    case "Ready":
    case "EmbedResult":
    case "FetchResult":
    case "QueryResult":
    case "CommandResult":
    case "IntegrationResult":
      return true;
    case "ModelEvent":
      return message.event.type === "done" || message.event.type === "error";
    case "JobStatus":
      return message.status === "succeeded" || message.status === "failed";
    default:
      return false;
  }
}
