import { z } from "zod";
import { aBoolean, aString } from "../common.js";
import { agentName, providerName } from "./names.js";
import { helloEgressSchema } from "./protocol-egress.js";
import { protocolHeader } from "./protocol-header.js";
import { integrationNameSchema } from "./protocol-integration.js";

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
  // The sender cannot go on (its brain failed to open, the channel is corrupt): the other side should stop
  // the cell and report this message instead of retrying.
  fatal: aBoolean().optional(),
});
export type ProtocolError = z.output<typeof protocolErrorSchema>;

/** Either direction: I am alive. The warden restarts a cell that misses several in a row. */
export const heartbeatSchema = z.strictObject({
  type: z.literal("Heartbeat"),
  ...protocolHeader,
});
export type Heartbeat = z.output<typeof heartbeatSchema>;

/**
 * Warden → inmate, once the channel is up: the provider names this host offers to the cell's model calls and,
 * when the cell's HTTPS proxy is on, its CA and placeholder env (a Hello without `egress` changes nothing).
 */
export const helloSchema = z.strictObject({
  type: z.literal("Hello"),
  ...protocolHeader,
  providers: z.array(providerName),
  egress: helloEgressSchema.optional(),
  /**
   * The integrations the cell's user holds a credential for, so the agent is given only tools it can use. Sent
   * with each Hello: a credential added since the cell started reaches the agent's next turn.
   */
  integrations: z.array(integrationNameSchema).optional(),
});
export type Hello = z.output<typeof helloSchema>;

const agentSummarySchema = z.strictObject({
  name: agentName,
  provider: providerName,
  model: aString(),
});

/**
 * Inmate → warden, the answer to Hello once the handler can serve: what runs in the cell and which agent
 * profiles its brain defines (the warden lists them as models on its OpenAI-compatible endpoint).
 */
export const readySchema = z.strictObject({
  type: z.literal("Ready"),
  ...protocolHeader,
  handler: aString().min(1, "must not be empty"),
  agents: z.array(agentSummarySchema),
  default_agent: aString().optional(),
});
export type Ready = z.output<typeof readySchema>;

/** Warden → inmate: finish the running work, flush the brain and exit; the channel closes after it. */
export const shutdownSchema = z.strictObject({
  type: z.literal("Shutdown"),
  ...protocolHeader,
  reason: aString().optional(),
});
export type Shutdown = z.output<typeof shutdownSchema>;
