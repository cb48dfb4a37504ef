import { z } from "zod";
import { anyId, nonEmptyString, oneOf, pathSafeId } from "../common.js";
import { type Contract, defineContract } from "../registry.js";
import { artifactPointerSchema } from "./aar-file.js";
import { runStatusSchema } from "./enums.js";
import { defineResponseContract } from "./envelope.js";
import { text } from "./fields.js";

export const CHAT_MODES = ["sync", "async"] as const;

/**
 * POST /chat (seed 000 §3.1 `{ "user_id", "theater_hint", "message", "mode": "sync" }`). theater_hint is a hint
 * the gateway may ignore, so it may be left out; when used it names the run's theater, so it is path-safe like
 * theater_id. mode is sync or async, the two responses §3.1 prints, and defaults to sync.
 */
export const chatRequestSchema = z.looseObject({
  user_id: anyId,
  theater_hint: pathSafeId.optional(),
  message: nonEmptyString,
  mode: z.enum(CHAT_MODES, { error: oneOf(CHAT_MODES) }).default("sync"),
});

/**
 * A finished run (§3.1 "Response (sync)": `run_id`, `reply`, `"artifacts": []`): the reply and pointers to the
 * artifacts it produced. The seed prints the list empty; each pointer is IronClaw's (order_id, path, type).
 */
export const chatSyncDataSchema = z.looseObject({
  run_id: pathSafeId,
  reply: text,
  artifacts: z.array(artifactPointerSchema),
});

/** An accepted run the client follows with GET /runs/{run_id} (§3.1 "Response (async)": run_id, status). */
export const chatAsyncDataSchema = z.looseObject({
  run_id: pathSafeId,
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
