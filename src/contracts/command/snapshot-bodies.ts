import { z } from "zod";
import { isoUtc, nonEmptyString, oneOf, pathSafeId } from "../common.js";
import type { Contract } from "../registry.js";
import { aarArtifactSchema } from "./aar-file.js";
import { orderStatusSchema, runStatusSchema } from "./enums.js";
import { defineResponseContract } from "./envelope.js";
import { ledgerEventPayloadSchemas } from "./event-payloads.js";
import { absolutePath, count, positiveInt, worktreePath } from "./fields.js";

export const WORKTREE_STATES = ["CREATED", "READY", "ARCHIVED", "REMOVED"] as const;
export const INTEGRATION_STATES = ["READY", "STARTED", "PASSED", "FAILED", "INTEGRATED"] as const;

// Every snapshot says how many events named its stream (the version expected-version writers compare against)
// and the global position of the last of them, so a reader knows how fresh it is.
const streamFields = { version: count, position: positiveInt };

/**
 * GET /runs/{run_id} (seed 000 §3.1 "Returns run status + summary", §3.3 "Returns run + derived snapshot"),
 * IronClaw's shape: the run's state derived from its events. summary is null until
 * the run is synthesized; objective is null when RUN_CREATED carried none (its payload is free-form).
 */
export const runSnapshotDataSchema = z.looseObject({
  run_id: pathSafeId,
  theater_id: pathSafeId,
  status: runStatusSchema,
  objective: nonEmptyString.nullable(),
  summary: nonEmptyString.nullable(),
  orders: z.array(z.looseObject({ order_id: pathSafeId, status: orderStatusSchema })),
  created_at: isoUtc,
  updated_at: isoUtc,
  finished_at: isoUtc.nullable(),
  ...streamFields,
});

/**
 * GET /orders/{order_id} (§3.3 "Returns order + derived snapshot + latest known artifact pointers"), IronClaw's
 * shape: the order's derived state and the latest known pointers into its worktree. attempt
 * is 0 until the order first starts; unit, worktree and AAR are null until the events that set them arrive.
 */
export const orderSnapshotDataSchema = z.looseObject({
  order_id: pathSafeId,
  run_id: pathSafeId,
  theater_id: pathSafeId,
  status: orderStatusSchema,
  attempt: count,
  unit_id: pathSafeId.nullable(),
  worktree_path: absolutePath.nullable(),
  aar_path: worktreePath.nullable(),
  artifacts: z.array(aarArtifactSchema),
  branch: ledgerEventPayloadSchemas.WORKTREE_CREATED.shape.branch.nullable(),
  worktree_state: z.enum(WORKTREE_STATES, { error: oneOf(WORKTREE_STATES) }).nullable(),
  integration_state: z.enum(INTEGRATION_STATES, { error: oneOf(INTEGRATION_STATES) }).nullable(),
  commit_sha: ledgerEventPayloadSchemas.INTEGRATED.shape.commit_sha.nullable(),
  created_at: isoUtc,
  started_at: isoUtc.nullable(),
  finished_at: isoUtc.nullable(),
  updated_at: isoUtc,
  ...streamFields,
});

export type RunSnapshotData = z.output<typeof runSnapshotDataSchema>;
export type OrderSnapshotData = z.output<typeof orderSnapshotDataSchema>;
export type WorktreeState = (typeof WORKTREE_STATES)[number];
export type IntegrationState = (typeof INTEGRATION_STATES)[number];

export const snapshotContracts: Contract[] = [
  defineResponseContract({
    kind: "run-snapshot-response",
    title: "Run snapshot (GET /runs/{run_id})",
    description: "A run's status, objective, summary and the status of each of its orders.",
    data: runSnapshotDataSchema,
  }),
  defineResponseContract({
    kind: "order-snapshot-response",
    title: "Order snapshot (GET /orders/{order_id})",
    description: "An order's status, attempt, unit and pointers to its worktree, AAR and artifacts.",
    data: orderSnapshotDataSchema,
  }),
];
