import { z } from "zod";
import { aBoolean, aNumber, aString, idString } from "../common.js";
import { agentName, toolName } from "./names.js";
import { protocolHeader, turnId } from "./protocol-header.js";
import { providerFailureSchema } from "./protocol-model.js";

/**
 * Warden → inmate: one chat input from the user; `agent` picks a profile other than the default. `history` is
 * the earlier conversation as a client holds it (the OpenAI-compatible endpoint is stateless): used only when
 * the session has no stored history of its own.
 */
export const userMessageSchema = z.strictObject({
  type: z.literal("UserMessage"),
  ...protocolHeader,
  text: aString().min(1, "must not be empty"),
  agent: agentName.optional(),
  history: z
    .array(
      z.strictObject({
        role: z.enum(["user", "assistant"], "must be one of user, assistant"),
        content: aString(),
      }),
    )
    .optional(),
});
export type UserMessage = z.output<typeof userMessageSchema>;

/** Inmate → warden: the next piece of the model's streamed answer. */
export const streamDeltaSchema = z.strictObject({
  type: z.literal("StreamDelta"),
  ...protocolHeader,
  delta: aString(),
  turn_id: turnId.optional(),
});
export type StreamDelta = z.output<typeof streamDeltaSchema>;

/** How a tool call ended: ran (ok/error), was refused by a policy, denied by the allow list, or never valid. */
export const TOOL_OUTCOMES = ["ok", "error", "refused", "denied", "invalid", "unknown"] as const;
export type ToolOutcome = (typeof TOOL_OUTCOMES)[number];

/**
 * Inmate → warden: the outcome of a tool call, for the chat view and the audit trail. A failed tool is data
 * (`isError: true` with the text the model read), never a protocol error.
 */
export const toolResultSchema = z.strictObject({
  type: z.literal("ToolResult"),
  ...protocolHeader,
  turn_id: turnId.optional(),
  call_id: idString,
  tool: toolName,
  isError: aBoolean(),
  outcome: z.enum(TOOL_OUTCOMES, `must be one of ${TOOL_OUTCOMES.join(", ")}`).optional(),
  content: aString(),
  // What the chat view shows beside the result: the call's arguments (raw JSON text, possibly cut) and its
  // duration. Optional: older inmates and the test handlers do not send them.
  args: aString().optional(),
  duration_ms: aNumber().int("must be an integer").min(0, "must be a non-negative integer").optional(),
});
export type ToolResult = z.output<typeof toolResultSchema>;

export const STOP_REASONS = ["stop", "length", "max_steps", "aborted", "error"] as const;

export const tokenUsageSchema = z.strictObject({
  input_tokens: aNumber().int("must be an integer").min(0, "must be a non-negative integer"),
  output_tokens: aNumber().int("must be an integer").min(0, "must be a non-negative integer"),
  /** The part of input_tokens the provider served from its prompt cache, where it says so (billed lower). */
  cached_input_tokens: aNumber()
    .int("must be an integer")
    .min(0, "must be a non-negative integer")
    .optional(),
});
export type TokenUsage = z.output<typeof tokenUsageSchema>;

/**
 * Inmate → warden: the end of a turn, with the whole final text so that a client that missed deltas still
 * shows the right answer, and the token usage that compaction and accounting need.
 */
export const turnCompleteSchema = z.strictObject({
  type: z.literal("TurnComplete"),
  ...protocolHeader,
  turn_id: turnId.optional(),
  text: aString(),
  usage: tokenUsageSchema,
  stop_reason: z.enum(STOP_REASONS, `must be one of ${STOP_REASONS.join(", ")}`),
  error: aString().min(1, "must not be empty").optional(),
  /** The failed model call that ended the turn, as the warden's model proxy reported it. */
  failure: providerFailureSchema.optional(),
});
export type TurnComplete = z.output<typeof turnCompleteSchema>;
