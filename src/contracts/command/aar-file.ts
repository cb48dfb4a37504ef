import { z } from "zod";
import { idString, isoUtc, nonEmptyString, oneOf } from "../common.js";
import { defineContract } from "../registry.js";
import { mimeType, worktreePath } from "./fields.js";

/**
 * How the worker's attempt ended. Lowercase as in the seed's example, because the AAR speaks about one
 * attempt, not about the order's ledger state: completed → ORDER_COMPLETED, failed → ORDER_FAILED,
 * blocked → ORDER_BLOCKED (waiting on something outside the worker), and partial for work that produced
 * artifacts but did not meet the whole objective, which the observer routes to recovery or integration.
 */
export const AAR_STATUSES = ["completed", "failed", "blocked", "partial"] as const;
export const aarStatusSchema = z.enum(AAR_STATUSES, { error: oneOf(AAR_STATUSES) });

/** A file the worker wrote, relative to its worktree; type is its media type when known. */
export const aarArtifactSchema = z.strictObject({
  path: worktreePath,
  type: mimeType.optional(),
});

/** An artifact seen from outside its worktree: the order it belongs to locates the worktree. */
export const artifactPointerSchema = z.strictObject({
  order_id: idString,
  path: worktreePath,
  type: mimeType.optional(),
});

/** The model that did the work; temperature is absent for models that take none. */
export const aarModelSchema = z.strictObject({
  provider: nonEmptyString,
  name: nonEmptyString,
  temperature: z
    .number({ error: "must be a number" })
    .min(0, "must be between 0 and 2")
    .max(2, "must be between 0 and 2")
    .optional(),
});

/**
 * aar.json, the after-action report a worker writes before it exits (seed 000 §2). Integration validates it
 * before anything else, so it is strict and every key of the seed's example is required.
 */
export const aarFileSchema = z.strictObject({
  order_id: idString,
  status: aarStatusSchema,
  completed_at: isoUtc,
  summary: nonEmptyString,
  artifacts: z.array(aarArtifactSchema),
  model: aarModelSchema,
  notes: z.array(nonEmptyString),
  next_recommendations: z.array(nonEmptyString),
});

export type AarStatus = z.output<typeof aarStatusSchema>;
export type AarArtifact = z.output<typeof aarArtifactSchema>;
export type ArtifactPointer = z.output<typeof artifactPointerSchema>;
export type AarFile = z.output<typeof aarFileSchema>;

export const aarContract = defineContract({
  kind: "aar",
  seed: "000",
  title: "After-action report (aar.json)",
  description:
    "What a worker did for one order: status (completed, failed, blocked, partial), completion time, summary, " +
    "artifacts written, model used, notes and recommendations.",
  format: "json",
  schema: aarFileSchema,
});
