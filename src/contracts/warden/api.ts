import { z } from "zod";
import { agentName, brainPath, tokenUsageSchema } from "../cell/index.js";
import { aBoolean, aNumber, aString } from "../common.js";

// The warden's HTTP API (seed 003 §3.1, §12): one schema per body and answer, shared by the routes (which
// validate and document with them) and the UI (which types its client with them).

export const userNameSchema = aString().regex(
  /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/,
  "must be 1-64 letters, digits, - or _, starting with a letter or digit",
);

export const userSchema = z.object({
  id: aString(),
  admin: aBoolean(),
  createdAt: aString(),
  cellUid: aNumber(),
});

export const userCreateBodySchema = z.strictObject({ name: userNameSchema, admin: aBoolean().optional() });
export const userTokenSchema = z.object({ user: aString(), token: aString() });

export const tokenLoginBodySchema = z.strictObject({ token: aString().min(1, "must not be empty") });
export const meSchema = z.object({ user: aString(), admin: aBoolean(), via: z.enum(["token", "cookie"]) });

// How long a message may be is the host's choice ([limits] max_message_bytes), checked by each front door.
const chatText = aString()
  .min(1, "must not be empty")
  .refine((t) => t.trim() !== "", "must not be only whitespace");

/** POST /api/chat and POST /api/sessions/:id/messages. */
export const chatBodySchema = z.strictObject({
  text: chatText,
  agent: agentName.optional(),
  session_id: aString().min(1, "must not be empty").optional(),
  // Answer as an SSE stream of chat events instead of one JSON answer at the end.
  stream: aBoolean().optional(),
});
export type ChatBody = z.output<typeof chatBodySchema>;

export const sessionCreateBodySchema = z.strictObject({
  title: aString().max(200, "must be at most 200 characters").optional(),
  agent: agentName.optional(),
});
export const sessionPatchBodySchema = z.strictObject({
  title: aString().min(1, "must not be empty").max(200, "must be at most 200 characters"),
});

export const sessionSchema = z.object({
  id: aString(),
  title: aString(),
  agent: aString().nullable(),
  channel: aString(),
  createdAt: aString(),
  updatedAt: aString(),
  turns: aNumber(),
});

export const sessionEntrySchema = z.object({
  seq: aNumber(),
  role: z.enum(["user", "assistant", "tool", "error"]),
  content: aString(),
  meta: z.record(z.string(), z.unknown()),
  at: aString(),
});

/**
 * Why a turn failed, for clients that act on it (the OpenAI endpoint's status, a Retry): the model cannot be
 * reached or is busy, stopped mid-reply, refused the request, is not set up on this host; the warden refused
 * the call (a spend cap, a model the host does not allow); the turn was stopped; the cell could not start; the
 * agent itself failed.
 */
export const TURN_FAILURES = [
  "model_unavailable",
  "model_interrupted",
  "model_refused",
  "model_setup",
  "refused",
  "aborted",
  "cell_unavailable",
  "agent_error",
] as const;
export type TurnFailure = (typeof TURN_FAILURES)[number];

/** One event of a chat turn on the SSE stream and the WebSocket (src/warden/chat-events.ts). */
export const chatEventSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("session"), sessionId: aString(), agent: aString().optional() }),
  z.object({ type: z.literal("delta"), text: aString() }),
  z.object({
    type: z.literal("tool"),
    callId: aString(),
    tool: aString(),
    isError: aBoolean(),
    outcome: aString().optional(),
    content: aString(),
    args: aString().optional(),
    durationMs: aNumber().optional(),
  }),
  z.object({
    type: z.literal("done"),
    text: aString(),
    usage: tokenUsageSchema,
    stopReason: z.enum(["stop", "length", "max_steps", "aborted", "error"]),
    error: aString().optional(),
    failure: z.enum(TURN_FAILURES).optional(),
  }),
]);

/** The JSON answer of a chat turn that was not streamed. */
export const chatAnswerSchema = z.object({
  session_id: aString(),
  text: aString(),
  tools: z.array(z.object({ tool: aString(), isError: aBoolean(), content: aString() })),
  usage: tokenUsageSchema,
  stop_reason: aString(),
  error: aString().optional(),
  failure: z.enum(TURN_FAILURES).optional(),
});

/** Client → warden over the WebSocket at /api/ws. */
export const wsClientMessageSchema = z.discriminatedUnion(
  "type",
  [
    z.strictObject({
      type: z.literal("chat"),
      id: aString().min(1, "must not be empty").max(128, "must be at most 128 characters"),
      text: chatText,
      session_id: aString().min(1, "must not be empty").optional(),
      agent: agentName.optional(),
    }),
    z.strictObject({ type: z.literal("cancel"), id: aString().min(1, "must not be empty") }),
    z.strictObject({ type: z.literal("ping") }),
  ],
  { error: () => "must be a message of type chat, cancel or ping" },
);
export type WsClientMessage = z.output<typeof wsClientMessageSchema>;

export const brainPathQuerySchema = z.strictObject({ path: brainPath.optional() });
export const brainFileQuerySchema = z.strictObject({ path: brainPath });
export const brainWriteBodySchema = z.strictObject({
  path: brainPath,
  content: aString().max(4 * 1024 * 1024, "must be at most 4194304 characters"),
});

/** A change to a prompt file (soul.md, identity.md, instructions/*.md, a persona file) held by the soul guard. */
export const soulChangeSchema = z.object({
  id: aString(),
  userId: aString(),
  /** The prompt file, relative to the brain. */
  path: aString(),
  /** The version a person last approved; null when there was none (the change creates the file). */
  before: aString().nullable(),
  after: aString().nullable(),
  reasons: z.array(aString()),
  source: aString(),
  status: aString(),
  createdAt: aString(),
  decidedAt: aString().nullable(),
  decidedBy: aString().nullable(),
  applied: aBoolean(),
});

export const agentInfoSchema = z.object({
  agents: z.array(z.object({ name: aString(), provider: aString(), model: aString() })),
  default_agent: aString().optional(),
});

export const pairingCodeSchema = z.object({
  code: aString(),
  expires_in_seconds: aNumber(),
  /** The Telegram bots the code can be sent to. */
  bots: z.array(aString()),
  /** Every channel the code can be sent to (`telegram:<bot>`, `slack:<app>`…), and how, in one sentence. */
  channels: z.array(z.object({ channel: aString(), how: aString() })),
});

// The OpenAI-compatible endpoint: liberal in what it accepts (every OpenAI client sends fields we do not use),
// strict about the few it needs.
const contentPart = z.looseObject({ type: aString(), text: aString().optional() });
export const openAiMessageSchema = z.looseObject({
  role: z.enum(
    ["system", "developer", "user", "assistant", "tool", "function"],
    "must be one of system, developer, user, assistant, tool, function",
  ),
  content: z.union([aString(), z.array(contentPart), z.null()]).optional(),
});
export const openAiChatRequestSchema = z.looseObject({
  model: aString().min(1, "must not be empty"),
  messages: z.array(openAiMessageSchema).min(1, "must contain at least one message"),
  stream: aBoolean().optional(),
  stream_options: z.looseObject({ include_usage: aBoolean().optional() }).nullable().optional(),
  user: aString().optional(),
});
export type OpenAiChatRequest = z.output<typeof openAiChatRequestSchema>;
