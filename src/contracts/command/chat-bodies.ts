import { z } from "zod";
import { idString, nonEmptyString, oneOf } from "../common.js";
import { type Contract, defineContract } from "../registry.js";
import { artifactPointerSchema } from "./aar-file.js";
import { runStatusSchema } from "./enums.js";
import { defineResponseContract } from "./envelope.js";
import { text } from "./fields.js";

export const CHAT_MODES = ["sync", "async"] as const;

/**
 * POST /chat (seed 000 §3.1). theater_hint is a hint the gateway may ignore, so it may be left out; mode
 * defaults to sync, the form a plain chat client expects.
 */
export const chatRequestSchema = z.strictObject({
  user_id: idString,
  theater_hint: idString.optional(),
  message: nonEmptyString,
  mode: z.enum(CHAT_MODES, { error: oneOf(CHAT_MODES) }).default("sync"),
});

/** A finished run: the reply and pointers to the artifacts it produced (possibly none). */
export const chatSyncDataSchema = z.strictObject({
  run_id: idString,
  reply: text,
  artifacts: z.array(artifactPointerSchema),
});

/** An accepted run the client follows with GET /runs/{run_id}. */
export const chatAsyncDataSchema = z.strictObject({
  run_id: idString,
  status: runStatusSchema,
});

export type ChatRequest = z.input<typeof chatRequestSchema>;
export type ParsedChatRequest = z.output<typeof chatRequestSchema>;
export type ChatSyncData = z.output<typeof chatSyncDataSchema>;
export type ChatAsyncData = z.output<typeof chatAsyncDataSchema>;

export const chatContracts: Contract[] = [
  defineContract({
    kind: "chat-request",
    seed: "000",
    title: "Chat request (POST /chat)",
    description: "A user's message to the gateway, with an optional theater hint and mode sync or async.",
    format: "json",
    schema: chatRequestSchema,
  }),
  defineResponseContract({
    kind: "chat-response-sync",
    title: "Chat response, sync (POST /chat)",
    description: "The run id, the final reply and pointers to the run's artifacts.",
    data: chatSyncDataSchema,
  }),
  defineResponseContract({
    kind: "chat-response-async",
    title: "Chat response, async (POST /chat)",
    description: "The run id and its status; the client polls GET /runs/{run_id}.",
    data: chatAsyncDataSchema,
  }),
];
