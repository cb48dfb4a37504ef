import { z } from "zod";
import { defineContract } from "../registry.js";
import {
  streamDeltaSchema,
  toolResultSchema,
  turnCompleteSchema,
  userMessageSchema,
} from "./protocol-chat.js";
import { commandRequestSchema, commandResultSchema } from "./protocol-command.js";
import {
  heartbeatSchema,
  helloSchema,
  protocolErrorSchema,
  readySchema,
  shutdownSchema,
} from "./protocol-control.js";
import {
  egressAckSchema,
  egressCloseSchema,
  egressDataSchema,
  egressEndSchema,
  egressOpenSchema,
} from "./protocol-egress.js";
import { fileOpRequestSchema, fileOpResultSchema } from "./protocol-files.js";
import { integrationRequestSchema, integrationResultSchema } from "./protocol-integration.js";
import { jobStatusSchema, jobTriggerSchema } from "./protocol-jobs.js";
import { memoryForgottenSchema } from "./protocol-memory.js";
import {
  cancelSchema,
  embedRequestSchema,
  embedResultSchema,
  fetchRequestSchema,
  fetchResultSchema,
  modelEventSchema,
  modelRequestSchema,
} from "./protocol-model.js";
import { queryRequestSchema, queryResultSchema } from "./protocol-query.js";

export const PROTOCOL_MESSAGE_TYPES = [
  "UserMessage",
  "StreamDelta",
  "ToolResult",
  "TurnComplete",
  "JobTrigger",
  "JobStatus",
  "FileOpRequest",
  "FileOpResult",
  "Error",
  "Heartbeat",
  "Hello",
  "Ready",
  "Shutdown",
  "Cancel",
  "ModelRequest",
  "ModelEvent",
  "EmbedRequest",
  "EmbedResult",
  "FetchRequest",
  "FetchResult",
  "QueryRequest",
  "QueryResult",
  "MemoryForgotten",
  "CommandRequest",
  "CommandResult",
  "EgressOpen",
  "EgressData",
  "EgressEnd",
  "EgressClose",
  "EgressAck",
  "IntegrationRequest",
  "IntegrationResult",
] as const;
export type ProtocolMessageType = (typeof PROTOCOL_MESSAGE_TYPES)[number];

/** One warden ↔ inmate message (seed 003 §12), the JSON inside one length-prefixed frame. */
export const protocolMessageSchema = z.discriminatedUnion(
  "type",
  [
    userMessageSchema,
    streamDeltaSchema,
    toolResultSchema,
    turnCompleteSchema,
    jobTriggerSchema,
    jobStatusSchema,
    fileOpRequestSchema,
    fileOpResultSchema,
    protocolErrorSchema,
    heartbeatSchema,
    helloSchema,
    readySchema,
    shutdownSchema,
    cancelSchema,
    modelRequestSchema,
    modelEventSchema,
    embedRequestSchema,
    embedResultSchema,
    fetchRequestSchema,
    fetchResultSchema,
    queryRequestSchema,
    queryResultSchema,
    memoryForgottenSchema,
    commandRequestSchema,
    commandResultSchema,
    egressOpenSchema,
    egressDataSchema,
    egressEndSchema,
    egressCloseSchema,
    egressAckSchema,
    integrationRequestSchema,
    integrationResultSchema,
  ],
  {
    error: (issue) =>
      issue.code === "invalid_union"
        ? `must be one of ${PROTOCOL_MESSAGE_TYPES.join(", ")}`
        : "must be a JSON object",
  },
);
export type ProtocolMessage = z.output<typeof protocolMessageSchema>;
export type ProtocolMessageInput = z.input<typeof protocolMessageSchema>;

export const protocolMessageContract = defineContract({
  kind: "protocol-message",
  seed: "003",
  title: "Warden ↔ inmate protocol message",
  description:
    "One message between the host daemon and the agent runtime in a cell, discriminated by `type`. Every " +
    "message carries user_id, session_id, a per-direction monotonic msg_id, an ISO-8601 UTC timestamp and " +
    "optionally the msg_id it answers (reply_to).",
  format: "json",
  schema: protocolMessageSchema,
});
