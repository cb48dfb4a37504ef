import { z } from "zod";
import { idString, isoUtc, nonEmptyString } from "../common.js";
import type { Contract } from "../registry.js";
import { aarArtifactSchema } from "./aar-file.js";
import { orderStatusSchema, runStatusSchema } from "./enums.js";
import { defineResponseContract } from "./envelope.js";
import { absolutePath, count, worktreePath } from "./fields.js";

/**
 * GET /runs/{run_id} (seed 000 §3.1, §3.3): the run's state derived from its events. summary is null until
 * the run is synthesized.
 */
export const runSnapshotDataSchema = z.strictObject({
  run_id: idString,
  theater_id: idString,
  status: runStatusSchema,
  objective: nonEmptyString,
  summary: nonEmptyString.nullable(),
  orders: z.array(z.strictObject({ order_id: idString, status: orderStatusSchema })),
  created_at: isoUtc,
  updated_at: isoUtc,
});

/**
 * GET /orders/{order_id}: the order's derived state and the latest known pointers into its worktree. attempt
 * is 0 until the order first starts; unit, worktree and AAR are null until the events that set them arrive.
 */
export const orderSnapshotDataSchema = z.strictObject({
  order_id: idString,
  run_id: idString,
  theater_id: idString,
  status: orderStatusSchema,
  attempt: count,
  unit_id: idString.nullable(),
  worktree_path: absolutePath.nullable(),
  aar_path: worktreePath.nullable(),
  artifacts: z.array(aarArtifactSchema),
  updated_at: isoUtc,
});

export type RunSnapshotData = z.output<typeof runSnapshotDataSchema>;
export type OrderSnapshotData = z.output<typeof orderSnapshotDataSchema>;

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
