import { z } from "zod";
import { userNameSchema } from "./api.js";

// Provenance as the warden serves it to people (issue 36): the certificates of their chat turns and the history
// of their brain, under the warden's sign-in. A user sees their own; an admin whoever they name with ?user=.

export const attestScopeQuerySchema = z.strictObject({ user: userNameSchema.optional() });

export const certificateListQuerySchema = attestScopeQuerySchema.extend({
  /** Only the turns of one conversation: how the chat finds each message's certificate. */
  session: z.string().min(1, "must be a conversation id").optional(),
  offset: z.coerce
    .number({ error: "must be a number" })
    .int("must be an integer")
    .min(0, "must be at least 0")
    .optional(),
  limit: z.coerce
    .number({ error: "must be a number" })
    .int("must be an integer")
    .min(1, "must be at least 1")
    .max(200, "must be at most 200")
    .optional(),
});

/**
 * One certified turn as turns.jsonl lists it. `seq` is the conversation entry of the turn's reply (what the chat
 * shows as the message), `turn_id` the agent's id of the turn, `node_id` the brain state it left; turns
 * certified before these were recorded have none of them.
 */
export const certifiedTurnSchema = z.looseObject({
  job_id: z.string(),
  session_id: z.string(),
  timestamp: z.string(),
  seq: z.number().int().optional(),
  turn_id: z.string().optional(),
  node_id: z.string().nullable().optional(),
});

export const certifiedTurnListSchema = z.object({
  total: z.number(),
  certificates: z.array(certifiedTurnSchema),
});

/** One check of `ironclaw verify` (src/attest/verify): its name, pass/fail/skip and why. */
export const verifyCheckSchema = z.looseObject({ check: z.string(), status: z.string(), reason: z.string() });

/** A certificate (loom-agent-run-v1, as stored) with its proof and the verification of both. */
export const certificateDetailSchema = z.object({
  certificate: z.unknown(),
  proof: z.unknown(),
  verify: z.object({ ok: z.boolean(), checks: z.array(verifyCheckSchema) }),
});

/** A node id: a UUID, or at least its first 8 characters when only one node starts so. */
export const historyNodeRef = z
  .string()
  .regex(/^[0-9a-fA-F-]{8,36}$/, "must be a node id (a UUID) or at least its first 8 characters");

/** One state of a brain's history: its node, the commit it pins, why and when, and what its commit changed. */
export const brainHistoryEntrySchema = z.object({
  node: z.looseObject({
    node_id: z.string(),
    parent_node_id: z.string().nullable(),
    state_db: z.looseObject({ ratchet_step: z.number() }),
  }),
  commit: z.string(),
  cause: z.string(),
  at: z.string(),
  /** A forget has since removed text from this state. */
  redacted: z.boolean(),
  /** The files changed against the parent state (a first state: every file it holds). */
  files: z.array(z.string()),
});

export const brainHistoryListSchema = z.object({ entries: z.array(brainHistoryEntrySchema) });

export const brainHistoryNodeParamsSchema = z.object({ node_id: historyNodeRef });

/** A node's whole record, and every file of its tree. */
export const brainHistoryNodeSchema = brainHistoryEntrySchema.extend({
  node: z.record(z.string(), z.unknown()).and(brainHistoryEntrySchema.shape.node),
  tree: z.array(z.string()),
});

/** Two nodes to compare; without `from`, `to` is compared with its parent. */
export const brainHistoryDiffQuerySchema = attestScopeQuerySchema.extend({
  from: historyNodeRef.optional(),
  to: historyNodeRef,
});

export const brainHistoryDiffSchema = z.object({
  /** Null when `to` is the first state: its files count as added. */
  from_node: z.string().nullable(),
  to_node: z.string(),
  added: z.array(z.string()),
  changed: z.array(z.string()),
  removed: z.array(z.string()),
  patch: z.string(),
});

export const brainHistoryRestoreBodySchema = z.strictObject({ node_id: historyNodeRef });

/** The new node a restore made, or null when the brain already held that node's files. */
export const brainHistoryRestoreSchema = z.object({
  restored_from: z.string(),
  entry: brainHistoryEntrySchema.omit({ files: true }).nullable(),
});
