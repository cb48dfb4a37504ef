import { z } from "zod";
import { aBoolean, aNumber, aString, idString } from "../common.js";
import { hostPattern } from "./host-names.js";
import { cronJobId, providerName } from "./names.js";
import { protocolHeader } from "./protocol-header.js";

// The model proxy (seed 003 §3.1, §11): a cell holds no provider key and has no network, so its agent's model
// calls travel to the warden as ModelRequest and come back as a stream of ModelEvents. The shapes below are
// the provider layer's own chat types (src/providers derives its types from them), so nothing is translated.

const count = () => aNumber().int("must be an integer").min(0, "must be a non-negative integer");

export const toolCallSchema = z.strictObject({
  id: aString(),
  name: aString().min(1, "must not be empty"),
  // The raw JSON text the model produced; parsed and validated by the tool box, never here.
  arguments: aString(),
});

export const chatMessageSchema = z.discriminatedUnion(
  "role",
  [
    z.strictObject({ role: z.literal("system"), content: aString() }),
    z.strictObject({ role: z.literal("user"), content: aString() }),
    z.strictObject({ role: z.literal("assistant"), content: aString(), toolCalls: z.array(toolCallSchema) }),
    z.strictObject({
      role: z.literal("tool"),
      toolCallId: aString(),
      name: aString(),
      content: aString(),
      isError: aBoolean(),
    }),
  ],
  { error: () => "must be a message with role system, user, assistant or tool" },
);

/** One message of a model conversation, by role; the provider layer, the agent loop and memory all hold these. */
export type ChatMessage = z.output<typeof chatMessageSchema>;

export const toolSpecSchema = z.strictObject({
  name: aString().min(1, "must not be empty"),
  description: aString(),
  parameters: z.record(z.string(), z.unknown()),
});

export const tokenCountSchema = z.strictObject({
  input_tokens: count(),
  output_tokens: count(),
  /** The part of input_tokens the provider served from its prompt cache. */
  cached_input_tokens: count().optional(),
});

export const PROVIDER_ERROR_CODES = [
  "missing_key",
  "auth_failed",
  "unknown_model",
  "rate_limited",
  "http_error",
  "network_error",
  "malformed_stream",
  "truncated_stream",
  "upstream_error",
  "timeout",
  "aborted",
  // The warden refused the call before it reached a provider: an unknown provider, a model the host does not
  // allow, a budget. The message says which and what to do.
  "refused",
] as const;

export const providerFailureSchema = z.strictObject({
  code: z.enum(PROVIDER_ERROR_CODES, `must be one of ${PROVIDER_ERROR_CODES.join(", ")}`),
  message: aString(),
  status: aNumber().int("must be an integer").optional(),
  retryable: aBoolean(),
  /**
   * The provider's own words (its error body's message), apart from `message`, for the warden to judge what a
   * user may see; the warden's proxy keeps it for the audit and never forwards it to a cell.
   */
  detail: aString().optional(),
});

const assistantMessageSchema = z.strictObject({
  role: z.literal("assistant"),
  content: aString(),
  toolCalls: z.array(toolCallSchema),
});

export const FINISH_REASONS = ["stop", "tool_calls", "length"] as const;

/** One event of a streaming model call, as the provider layer reports it (see src/providers/stream-event.ts). */
export const streamEventSchema = z.discriminatedUnion(
  "type",
  [
    z.strictObject({ type: z.literal("start"), model: aString(), attempts: count() }),
    z.strictObject({ type: z.literal("text_delta"), delta: aString() }),
    z.strictObject({ type: z.literal("tool_call"), call: toolCallSchema }),
    z.strictObject({ type: z.literal("usage"), usage: tokenCountSchema }),
    z.strictObject({
      type: z.literal("done"),
      message: assistantMessageSchema,
      finishReason: z.enum(FINISH_REASONS, `must be one of ${FINISH_REASONS.join(", ")}`),
      usage: tokenCountSchema,
    }),
    z.strictObject({
      type: z.literal("error"),
      error: providerFailureSchema,
      message: assistantMessageSchema,
      usage: tokenCountSchema,
    }),
  ],
  { error: () => "must be a stream event: start, text_delta, tool_call, usage, done or error" },
);

/**
 * Inmate → warden: one model call. The cell names a provider the host offers and a model, nothing else: never
 * a URL, a header or an environment variable (a strict object, so such fields are refused, not ignored).
 */
export const modelRequestSchema = z.strictObject({
  type: z.literal("ModelRequest"),
  ...protocolHeader,
  provider: providerName,
  model: aString().min(1, "must not be empty").max(256, "must be at most 256 characters"),
  messages: z.array(chatMessageSchema).min(1, "must contain at least one message"),
  tools: z.array(toolSpecSchema).optional(),
  temperature: aNumber().min(0, "must be between 0 and 2").max(2, "must be between 0 and 2").optional(),
  max_tokens: aNumber().int("must be an integer").min(1, "must be at least 1").optional(),
  /** The agent profile the call is for, for the warden's accounting and audit. */
  agent: aString().max(64, "must be at most 64 characters").optional(),
  // Labels for usage reports and the per-job cap. Who pays is never the guest's to say: the warden charges the
  // cell's owner, whatever these (or the header) name.
  /** The chat session the call is part of. */
  session: idString.optional(),
  /** The cron job the call runs for. */
  job: cronJobId.optional(),
});
export type ModelRequest = z.output<typeof modelRequestSchema>;

/** Warden → inmate: the next event of a proxied model call; `done` or `error` is the last one. */
export const modelEventSchema = z.strictObject({
  type: z.literal("ModelEvent"),
  ...protocolHeader,
  event: streamEventSchema,
});
export type ModelEvent = z.output<typeof modelEventSchema>;

/** Inmate → warden: embed texts with a provider's embeddings endpoint (`[indexing] embedder = "provider"`). */
export const embedRequestSchema = z.strictObject({
  type: z.literal("EmbedRequest"),
  ...protocolHeader,
  provider: providerName,
  model: aString().min(1, "must not be empty").max(256, "must be at most 256 characters"),
  texts: z.array(aString()).min(1, "must contain at least one text").max(2048, "must be at most 2048 texts"),
});
export type EmbedRequest = z.output<typeof embedRequestSchema>;

/** Warden → inmate: one vector per text, in order. Failures are an Error reply instead. */
export const embedResultSchema = z.strictObject({
  type: z.literal("EmbedResult"),
  ...protocolHeader,
  vectors: z.array(z.array(aNumber())),
});
export type EmbedResult = z.output<typeof embedResultSchema>;

/** Inmate → warden: GET a URL for the browser tool through the host's egress policy. */
export const fetchRequestSchema = z.strictObject({
  type: z.literal("FetchRequest"),
  ...protocolHeader,
  url: aString().min(1, "must not be empty").max(8192, "must be at most 8192 characters"),
  max_bytes: aNumber().int("must be an integer").min(1, "must be at least 1").optional(),
  timeout_ms: aNumber().int("must be an integer").min(1, "must be at least 1").optional(),
  // The brain's own deny list: the warden checks it against resolved addresses (the cell has no DNS). It can
  // only narrow the host's policy, never widen it.
  deny_hosts: z.array(hostPattern).max(1000, "must list at most 1000 hosts").optional(),
});
export type FetchRequest = z.output<typeof fetchRequestSchema>;

/** Warden → inmate: the fetched page; a refused or failed fetch is an Error reply instead. */
export const fetchResultSchema = z.strictObject({
  type: z.literal("FetchResult"),
  ...protocolHeader,
  url: aString(),
  status: aNumber().int("must be an integer"),
  content_type: aString(),
  body_base64: aString(),
  truncated: aBoolean(),
});
export type FetchResult = z.output<typeof fetchResultSchema>;

/** Either direction: stop the work a request started (a turn, a model call, a fetch). */
export const cancelSchema = z.strictObject({
  type: z.literal("Cancel"),
  ...protocolHeader,
  target: aNumber().int("must be an integer").min(0, "must be a non-negative integer"),
});
export type Cancel = z.output<typeof cancelSchema>;
