import { z } from "zod";
import { aString } from "../common.js";
import { protocolHeader } from "./protocol-header.js";

/**
 * Why a message could not be handled. A fixed list, because both sides ship from this repository and a
 * client decides by code (retry on busy, show not_found, drop the connection on frame_too_large).
 */
export const PROTOCOL_ERROR_CODES = [
  "malformed_frame",
  "frame_too_large",
  "unknown_type",
  "invalid_message",
  "not_found",
  "forbidden",
  "busy",
  "timeout",
  "internal",
] as const;
export type ProtocolErrorCode = (typeof PROTOCOL_ERROR_CODES)[number];

/**
 * Either direction: a message was refused or failed. `reply_to` names the message answered when it could be
 * read far enough to know its msg_id; a frame that could not be decoded at all is answered without it.
 */
export const protocolErrorSchema = z.strictObject({
  type: z.literal("Error"),
  ...protocolHeader,
  code: z.enum(PROTOCOL_ERROR_CODES, `must be one of ${PROTOCOL_ERROR_CODES.join(", ")}`),
  message: aString().min(1, "must not be empty"),
});
export type ProtocolError = z.output<typeof protocolErrorSchema>;

/** Either direction: I am alive. The warden restarts a cell that misses several in a row. */
export const heartbeatSchema = z.strictObject({
  type: z.literal("Heartbeat"),
  ...protocolHeader,
});
export type Heartbeat = z.output<typeof heartbeatSchema>;
