import { z } from "zod";
import {
  brainEntrySchema,
  cronJobSchema,
  cronJobStateSchema,
  forgetTarget,
  JOB_STATUSES,
  memoryForgetAnswerSchema,
  memoryHitSchema,
  memoryIndexStatusSchema,
  memoryPromotionSchema,
  PROMOTION_STATES,
  SEARCH_MODES,
  TOOL_OUTCOMES,
  toolAuditEntrySchema,
  toolName,
} from "../cell/index.js";
import { aBoolean, aNumber, aString, idString } from "../common.js";
import { chatEventSchema, sessionEntrySchema, sessionSchema, soulChangeSchema } from "./api.js";

// The warden's answers that the web UI reads (seed 003 §3.3, §14 phase c): the memory inspector, the cron
// editor, audit and admin. The routes validate and document with these; the UI types its client with them.

const queryInt = (max: number) =>
  z.coerce
    .number({ error: "must be a number" })
    .int("must be an integer")
    .min(1, "must be at least 1")
    .max(max, `must be at most ${max}`);

/** GET /api/brain/files */
export const brainListingSchema = z.object({ path: aString(), entries: z.array(brainEntrySchema) });
/** GET /api/brain/file */
export const brainFileSchema = z.object({ path: aString(), content: aString() });
/** PUT /api/brain/file: a held soul.md edit is not written (202) and names the change waiting for a human. */
export const brainWriteResultSchema = z.object({
  path: aString(),
  written: aBoolean(),
  held: soulChangeSchema.optional(),
});
export const brainDeleteResultSchema = z.object({ path: aString(), deleted: aBoolean() });

/** DELETE of a session or a cron job: what was deleted. */
export const deletedAnswerSchema = z.object({ deleted: aString() });
/** DELETE /api/users/:name */
export const userRemovedSchema = z.object({ removed: aString() });

/** GET /api/sessions/:id */
export const sessionDetailSchema = z.object({ session: sessionSchema, entries: z.array(sessionEntrySchema) });

/** GET /api/soul/changes/:id: the change and its line diff (` ` kept, `-` removed, `+` added). */
export const soulChangeDetailSchema = z.object({
  change: soulChangeSchema,
  diff: z.array(z.object({ op: aString(), text: aString() })),
});

/** GET /api/audit: filters; a user sees only their own entries, an admin anyone's. */
export const wardenAuditQuerySchema = z.strictObject({
  action: aString().optional(),
  user: aString().optional(),
  limit: queryInt(1000).optional(),
});

/** One row of the warden's own audit trail (logins, inspector writes, soul decisions, refused proxy calls). */
export const wardenAuditRecordSchema = z.object({
  id: aNumber(),
  at: aString(),
  userId: aString().nullable(),
  actor: aString(),
  action: aString(),
  detail: z.record(z.string(), z.unknown()),
});

export const memorySearchParamsSchema = z.strictObject({
  q: aString().min(1, "must not be empty").max(2000, "must be at most 2000 characters"),
  mode: z.enum(SEARCH_MODES, `must be one of ${SEARCH_MODES.join(", ")}`).optional(),
  limit: queryInt(50).optional(),
});
export const memorySearchAnswerSchema = z.object({ hits: z.array(memoryHitSchema) });
export const memoryStatusAnswerSchema = memoryIndexStatusSchema;

/**
 * POST /api/memory/forget: without `apply` (or with false) a preview of what would be removed, with its text;
 * with `apply: true` it is removed for good from the brain's markdown, its index and database, and the
 * warden's record of the conversations.
 */
export const memoryForgetBodySchema = z.strictObject({
  target: forgetTarget,
  apply: aBoolean().optional(),
});
export const memoryForgetResultSchema = memoryForgetAnswerSchema.omit({ kind: true });

/** GET /api/memory/promotions: proposals to add recalled facts to memory.md, newest first. */
export const promotionListParamsSchema = z.strictObject({
  status: z.enum(PROMOTION_STATES, `must be one of ${PROMOTION_STATES.join(", ")}`).optional(),
});
export const promotionListAnswerSchema = z.object({ proposals: z.array(memoryPromotionSchema) });
/** POST /api/memory/promotions/:id/approve|reject: the proposal as decided. */
export const promotionParamsSchema = z.strictObject({ id: idString });
export const promotionAnswerSchema = memoryPromotionSchema;

/** GET /api/cron/jobs: the scheduler's jobs with their state; `file_error` when jobs.toml does not load. */
export const cronJobListSchema = z.object({
  jobs: z.array(cronJobStateSchema),
  file_error: aString().optional(),
});
/** POST /api/cron/jobs: a whole job as jobs.toml holds it. */
export const cronJobCreateBodySchema = cronJobSchema;
/** PUT /api/cron/jobs/:id: the job's fields but its id (which names it in the URL). */
export const cronJobUpdateBodySchema = cronJobSchema.omit({ id: true });
export const cronJobParamsSchema = z.strictObject({ id: cronJobSchema.shape.id });
/** POST /api/cron/jobs/:id/run: how the run ended. */
export const cronRunAnswerSchema = z.object({
  job_id: aString(),
  status: z.enum(JOB_STATUSES),
  result_ref: aString().optional(),
  error: aString().optional(),
});

/** GET /api/audit/tools: the brain's tool-call trail, newest first. */
export const toolAuditParamsSchema = z.strictObject({
  session: idString.optional(),
  tool: toolName.optional(),
  outcome: z.enum(TOOL_OUTCOMES, `must be one of ${TOOL_OUTCOMES.join(", ")}`).optional(),
  limit: queryInt(500).optional(),
});
export const toolAuditAnswerSchema = z.object({ entries: z.array(toolAuditEntrySchema) });

export const CELL_STATES = ["running", "suspended", "stopped", "halted", "crash_loop"] as const;

/** How a cell last crashed: its exit, in words and as node said it. */
export const cellCrashSchema = z.object({
  at: aString(),
  code: aNumber().nullable(),
  signal: aString().nullable(),
  /** In words: "it ran out of memory (exit code 134: …)". */
  reason: aString(),
  /** The last lines the cell wrote to stderr (node's own fatal error among them). */
  stderr: aString(),
  /** Crashes in a row within the restart window. */
  crashes: aNumber(),
});

/**
 * GET /api/admin/cells: one row per user; a stopped or suspended cell has no uptime or memory. A suspended cell
 * (microVM) was saved to disk when idle and resumes where it was on its user's next message. A cell in
 * crash_loop crashed again and again and is not started before `retry_at`, unless an admin restarts it (POST
 * /api/admin/cells/:user/restart); `last_crash` says why, until it next stops normally.
 */
export const cellStatusSchema = z.object({
  user: aString(),
  state: z.enum(CELL_STATES),
  backend: aString(),
  uptime_ms: aNumber().nullable(),
  memory_bytes: aNumber().nullable(),
  restarts: aNumber(),
  last_crash: cellCrashSchema.nullable(),
  retry_at: aString().nullable(),
});
export type CellStatus = z.output<typeof cellStatusSchema>;
export const cellStatusListSchema = z.object({
  backend: aString(),
  isolated: aBoolean(),
  cells: z.array(cellStatusSchema),
});
/** GET /api/admin/providers: the model providers this host offers, by name only (never a key or URL). */
export const providerNamesSchema = z.object({ providers: z.array(aString()) });

export const logoutAnswerSchema = z.object({ signed_out: aBoolean() });
/** POST /api/auth/logout-all: how many browser sessions of the user were ended (this one included). */
export const logoutAllAnswerSchema = z.object({ sessions_ended: aNumber().int().min(0) });

/**
 * Warden → client over the WebSocket at /api/ws (src/warden/routes/ws-route.ts): each chat event tagged with
 * the id of the chat it belongs to, an error (with the chat's id when it concerns one), or the answer to a ping.
 */
export const wsServerMessageSchema = z.union([
  z.intersection(chatEventSchema, z.object({ id: aString() })),
  z.object({ type: z.literal("error"), id: aString().optional(), code: aString(), message: aString() }),
  z.object({ type: z.literal("pong") }),
]);
