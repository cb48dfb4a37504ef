import type { z } from "zod";
import {
  ledgerAppendDataSchema,
  orderSnapshotDataSchema,
  runSnapshotDataSchema,
} from "../contracts/index.js";

/** The ledger serves the seed-000 snapshot and append shapes exactly as the contracts define them. */
export {
  INTEGRATION_STATES,
  type IntegrationState,
  WORKTREE_STATES,
  type WorktreeState,
} from "../contracts/index.js";

export const runSnapshotSchema = runSnapshotDataSchema;
export const orderSnapshotSchema = orderSnapshotDataSchema;
export const appendDataSchema = ledgerAppendDataSchema;

export type RunSnapshot = z.output<typeof runSnapshotSchema>;
export type OrderSnapshot = z.output<typeof orderSnapshotSchema>;
export type AppendResult = AppendData["appended"][number];
export type AppendData = z.output<typeof appendDataSchema>;
