import { z } from "zod";
import { aBoolean, aNumber, aString, idString } from "../common.js";
import { brainPath } from "./brain-path.js";
import { cronJobSchema } from "./cron-jobs.js";
import { toolName } from "./names.js";
import { brainStateAnswerSchema, brainStateQuerySchema } from "./protocol-brain-state.js";
import { TOOL_OUTCOMES } from "./protocol-chat.js";
import { messageId, protocolHeader } from "./protocol-header.js";
import { memoryForgetAnswerSchema, memoryForgetQuerySchema } from "./protocol-memory.js";

// Questions the warden asks about what lives in the brain database, which only the cell opens (seed 003 §5,
// §14 phase c: the memory inspector, the cron editor and the audit view of the UI).

const count = aNumber().int("must be an integer").min(0, "must be a non-negative integer");
const limit = (max: number) =>
  aNumber().int("must be an integer").min(1, "must be at least 1").max(max, `must be at most ${max}`);
const isoOrNull = aString().nullable();

export const SEARCH_MODES = ["hybrid", "lexical", "semantic"] as const;

export const memorySearchQuerySchema = z.strictObject({
  kind: z.literal("memory_search"),
  text: aString().min(1, "must not be empty").max(2000, "must be at most 2000 characters"),
  mode: z.enum(SEARCH_MODES, `must be one of ${SEARCH_MODES.join(", ")}`).optional(),
  limit: limit(50).optional(),
});

export const toolAuditQuerySchema = z.strictObject({
  kind: z.literal("tool_audit"),
  session_id: idString.optional(),
  tool: toolName.optional(),
  outcome: z.enum(TOOL_OUTCOMES, `must be one of ${TOOL_OUTCOMES.join(", ")}`).optional(),
  limit: limit(500).optional(),
});

export const PROMOTION_STATES = ["pending", "approved", "rejected"] as const;
export const PROMOTION_DECISIONS = ["approve", "reject"] as const;

/** The promotion proposals of the brain: passages of logs/ and sessions/ that answers kept using. */
export const memoryPromotionsQuerySchema = z.strictObject({
  kind: z.literal("memory_promotions"),
  status: z.enum(PROMOTION_STATES, `must be one of ${PROMOTION_STATES.join(", ")}`).optional(),
});

/** The owner's decision on one proposal: approve appends the fact to memory.md, reject drops it for good. */
export const memoryPromotionDecisionQuerySchema = z.strictObject({
  kind: z.literal("memory_promotion_decide"),
  id: idString,
  decision: z.enum(PROMOTION_DECISIONS, `must be one of ${PROMOTION_DECISIONS.join(", ")}`),
});

/** The soul guard's look at every file that can enter a system prompt (seed 003 §11.3). */
export const promptFilesQuerySchema = z.strictObject({ kind: z.literal("prompt_files") });

/** One prompt file as the cell would put it in a prompt now; null content: named by a profile but missing. */
export const promptFileSchema = z.strictObject({ path: brainPath, content: aString().nullable() });

/** What the warden may ask; each kind has one answer kind of the same name. */
export const brainQuerySchema = z.discriminatedUnion(
  "kind",
  [
    memorySearchQuerySchema,
    z.strictObject({ kind: z.literal("memory_status") }),
    z.strictObject({ kind: z.literal("cron_jobs") }),
    toolAuditQuerySchema,
    memoryPromotionsQuerySchema,
    memoryPromotionDecisionQuerySchema,
    promptFilesQuerySchema,
    memoryForgetQuerySchema,
    brainStateQuerySchema,
  ],
  {
    error: () =>
      "must be a query of kind memory_search, memory_status, cron_jobs, tool_audit, memory_promotions, " +
      "memory_promotion_decide, memory_forget, prompt_files or brain_state",
  },
);
export type BrainQuery = z.output<typeof brainQuerySchema>;

const rank = aNumber().int("must be an integer").min(1, "must be at least 1").nullable();
export const RECENCY_SOURCES = ["dated", "undated", "evergreen"] as const;
export const FLOOR_PASSES = ["above", "keyword", "best", "named", "off"] as const;

/** How a hit got its place, step by step (fusion, recency, the score floor, MMR), with the same in one line. */
export const rankingExplanationSchema = z.strictObject({
  fusion: aString(),
  /** 1-based rank in each leg among the candidates; null when that leg did not find it. */
  semantic_rank: rank,
  lexical_rank: rank,
  /** Share of the query's (rarity-weighted) words the chunk holds, 0..1. */
  coverage: aNumber(),
  /** The fused score before recency. */
  fused: aNumber(),
  recency: z.strictObject({
    source: z.enum(RECENCY_SOURCES, `must be one of ${RECENCY_SOURCES.join(", ")}`),
    date: aString().optional(),
    age_days: aNumber().optional(),
    half_life_days: aNumber().optional(),
    /** What the fused score was multiplied by (1 for undated and evergreen sources, or with decay off). */
    factor: aNumber(),
  }),
  floor: z.strictObject({
    min_score: aNumber(),
    passed: z.enum(FLOOR_PASSES, `must be one of ${FLOOR_PASSES.join(", ")}`),
  }),
  mmr: z
    .strictObject({
      lambda: aNumber(),
      redundancy: aNumber(),
      rank_before: aNumber().int("must be an integer"),
    })
    .optional(),
  summary: aString(),
});
export type RankingExplanationData = z.output<typeof rankingExplanationSchema>;

/** One hybrid-search hit with both legs' scores and its provenance, so a person can see why it was recalled. */
export const memoryHitSchema = z.strictObject({
  id: aString(),
  path: brainPath,
  headings: z.array(aString()),
  start_line: count,
  end_line: count,
  text: aString(),
  score: aNumber(),
  semantic: z.strictObject({ similarity: aNumber().nullable(), score: aNumber() }),
  lexical: z.strictObject({ bm25: aNumber().nullable(), score: aNumber() }),
  explanation: rankingExplanationSchema.optional(),
});
export type MemoryHit = z.output<typeof memoryHitSchema>;

export const memoryIndexStatusSchema = z.strictObject({
  files: count,
  chunks: count,
  embedder: aString().nullable(),
  /** The configured embedder differs from the one that built the vectors: the next index pass re-embeds. */
  embedder_stale: aBoolean(),
  database_bytes: count,
  last_indexed_at: isoOrNull,
  /** Files left out of the index and why (too large, a link…): they are in the brain but not searchable. */
  skipped: z.array(z.strictObject({ path: aString(), reason: aString() })).optional(),
});
export type MemoryIndexStatus = z.output<typeof memoryIndexStatusSchema>;

export const CRON_JOB_STATES = ["scheduled", "running", "succeeded", "failed", "disabled"] as const;

/** A job of cron/jobs.toml as the scheduler runs it, with its state from the brain database. */
export const cronJobStateSchema = cronJobSchema.extend({
  next_run: isoOrNull,
  last_run: isoOrNull,
  status: z.enum(CRON_JOB_STATES, `must be one of ${CRON_JOB_STATES.join(", ")}`),
  last_result_ref: isoOrNull,
  last_error: isoOrNull,
});
export type CronJobState = z.output<typeof cronJobStateSchema>;

export const toolAuditEntrySchema = z.strictObject({
  id: aString(),
  ts: aString(),
  session_id: aString(),
  agent: aString(),
  tool: aString(),
  call_id: aString(),
  args: aString(),
  outcome: aString(),
  is_error: aBoolean(),
  duration_ms: count,
  summary: aString(),
});
export type ToolAuditEntry = z.output<typeof toolAuditEntrySchema>;

/** A proposal to add a recalled passage's fact to memory.md, with how often answers used it. */
export const memoryPromotionSchema = z.strictObject({
  id: aString(),
  chunk_id: aString(),
  path: brainPath,
  headings: z.array(aString()),
  text: aString(),
  /** Distinct sessions and days whose answers cited the passage. */
  sessions: count,
  days: count,
  status: z.enum(PROMOTION_STATES, `must be one of ${PROMOTION_STATES.join(", ")}`),
  created_at: aString(),
  decided_at: isoOrNull,
  /** Where an approved fact was written: `memory.md#L12-L16`. */
  result_ref: isoOrNull,
});
export type MemoryPromotion = z.output<typeof memoryPromotionSchema>;

export const brainAnswerSchema = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("memory_search"), hits: z.array(memoryHitSchema) }),
  z.strictObject({ kind: z.literal("memory_status"), status: memoryIndexStatusSchema }),
  z.strictObject({
    kind: z.literal("cron_jobs"),
    jobs: z.array(cronJobStateSchema),
    /** Why cron/jobs.toml does not load; the jobs are then the last good schedule. */
    file_error: aString().optional(),
  }),
  z.strictObject({ kind: z.literal("tool_audit"), entries: z.array(toolAuditEntrySchema) }),
  z.strictObject({ kind: z.literal("memory_promotions"), proposals: z.array(memoryPromotionSchema) }),
  z.strictObject({ kind: z.literal("memory_promotion_decide"), proposal: memoryPromotionSchema }),
  z.strictObject({ kind: z.literal("prompt_files"), files: z.array(promptFileSchema) }),
  memoryForgetAnswerSchema,
  brainStateAnswerSchema,
]);
export type BrainAnswer = z.output<typeof brainAnswerSchema>;

/** Warden → inmate: one question about the brain database. */
export const queryRequestSchema = z.strictObject({
  type: z.literal("QueryRequest"),
  ...protocolHeader,
  query: brainQuerySchema,
});
export type QueryRequest = z.output<typeof queryRequestSchema>;

/** `not_found` and `conflict` let the warden answer 404 and 409 (an unknown or already decided proposal). */
export const QUERY_ERROR_CODES = ["unsupported", "invalid", "failed", "not_found", "conflict"] as const;

/** Inmate → warden: the answer to one QueryRequest (named by `reply_to`): an answer of its kind, or an error. */
export const queryResultSchema = z
  .strictObject({
    type: z.literal("QueryResult"),
    ...protocolHeader,
    reply_to: messageId,
    answer: brainAnswerSchema.optional(),
    error: z
      .strictObject({
        code: z.enum(QUERY_ERROR_CODES, `must be one of ${QUERY_ERROR_CODES.join(", ")}`),
        message: aString().min(1, "must not be empty"),
      })
      .optional(),
  })
  .superRefine((msg, ctx) => {
    if ((msg.answer === undefined) === (msg.error === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: [msg.answer === undefined ? "answer" : "error"],
        message: "exactly one of answer and error must be given",
        input: msg,
      });
    }
  });
export type QueryResult = z.output<typeof queryResultSchema>;
