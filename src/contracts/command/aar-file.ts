import { z } from "zod";
import { expected, isoUtc, nonEmptyString, pathSafeId } from "../common.js";
import { defineContract } from "../registry.js";
import { mimeType, worktreePath } from "./fields.js";

/**
 * The statuses IronClaw's workers write: lowercase as in the seed's example ("status": "completed"), because
 * the AAR speaks about one attempt, not about the order's ledger state. completed → ORDER_COMPLETED,
 * failed → ORDER_FAILED, blocked → ORDER_BLOCKED, partial for work that produced artifacts without meeting the
 * whole objective. The seed shows only "completed" and names no list, so a reader accepts any status and treats
 * one it does not know as "not completed".
 */
export const AAR_STATUSES = ["completed", "failed", "blocked", "partial"] as const;
export const aarStatusSchema = z.string({ error: expected("a string") }).min(1, "must not be empty");

/**
 * A file the worker wrote (seed 000 §2 `"artifacts": [{ "path": "outputs/model_output.txt", "type":
 * "text/plain" }]`), relative to its worktree: §3.7 "Ensure artifacts exist" looks there and nowhere else.
 */
export const aarArtifactSchema = z.looseObject({
  path: worktreePath,
  type: mimeType.optional(),
});

/** An artifact seen from outside its worktree: the order it belongs to locates the worktree. */
export const artifactPointerSchema = z.looseObject({
  order_id: pathSafeId,
  path: worktreePath,
  type: mimeType.optional(),
});

/**
 * The model that did the work (seed 000 §2 `"model": { "provider", "name", "temperature": 0.2 }`). The seed
 * sets no range on temperature, and providers differ (0–1, 0–2), so any number; absent for models that take none.
 */
export const aarModelSchema = z.looseObject({
  provider: nonEmptyString,
  name: nonEmptyString,
  temperature: z.number({ error: "must be a number" }).optional(),
});

/**
 * aar.json, the after-action report a worker writes before it exits (seed 000 §2 "AAR file (in worktree)").
 * Integration validates it first (§3.7 "Validate aar.json schema"), and the observer looks for it on
 * "completed" (§3.6 "Missing AAR/artifacts"), so the keys that say what happened are required. `notes` and
 * `next_recommendations` are printed empty (`[]`) in the seed's example: nothing reads them and the seed shows no
 * item, so they may be left out and hold any items.
 */
export const aarFileSchema = z.looseObject({
  order_id: pathSafeId,
  status: aarStatusSchema,
  completed_at: isoUtc,
  summary: nonEmptyString,
  artifacts: z.array(aarArtifactSchema),
  model: aarModelSchema,
  notes: z.array(z.unknown(), { error: expected("an array") }).optional(),
  next_recommendations: z.array(z.unknown(), { error: expected("an array") }).optional(),
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
    "What a worker did for one order: status (IronClaw writes completed, failed, blocked or partial), " +
    "completion time, summary, artifacts written, model used, and optional notes and recommendations.",
  format: "json",
  schema: aarFileSchema,
});
