import { z } from "zod";
import {
  ledgerAppendDataSchema,
  ledgerEventPayloadSchemas,
  orderSnapshotDataSchema,
  runSnapshotDataSchema,
} from "../contracts/index.js";

/**
 * The ledger's snapshots are the seed-000 response shapes (contracts/command/snapshot-bodies.ts) widened by
 * what the projections also derive. The contract schemas are strict and lack these fields, so they are
 * extended here rather than re-declared; see the report that asks for them to move into the contract.
 */
const position = z.number().int().min(1);
const version = orderSnapshotDataSchema.shape.attempt;
const time = runSnapshotDataSchema.shape.created_at;

export const WORKTREE_STATES = ["CREATED", "READY", "ARCHIVED", "REMOVED"] as const;
export const INTEGRATION_STATES = ["READY", "STARTED", "PASSED", "FAILED", "INTEGRATED"] as const;

export const runSnapshotSchema = runSnapshotDataSchema.extend({
  // RUN_CREATED's payload is free-form in the contract, so a run may have been created without an objective.
  objective: runSnapshotDataSchema.shape.objective.nullable(),
  finished_at: time.nullable(),
  /** How many events name this run: the stream version that expected-version writers compare against. */
  version,
  /** Global position of the last event that named this run. */
  position,
});

export const orderSnapshotSchema = orderSnapshotDataSchema.extend({
  branch: ledgerEventPayloadSchemas.WORKTREE_CREATED.shape.branch.nullable(),
  worktree_state: z.enum(WORKTREE_STATES).nullable(),
  integration_state: z.enum(INTEGRATION_STATES).nullable(),
  commit_sha: ledgerEventPayloadSchemas.INTEGRATED.shape.commit_sha.nullable(),
  created_at: time,
  started_at: time.nullable(),
  finished_at: time.nullable(),
  version,
  position,
});

export type RunSnapshot = z.output<typeof runSnapshotSchema>;
export type OrderSnapshot = z.output<typeof orderSnapshotSchema>;
export type WorktreeState = (typeof WORKTREE_STATES)[number];
export type IntegrationState = (typeof INTEGRATION_STATES)[number];

/** The append answer of seed 000 plus the global position each event was stored at. */
const appendedEntrySchema = ledgerAppendDataSchema.shape.appended.element.extend({ position });

export const appendDataSchema = ledgerAppendDataSchema.extend({
  appended: z.array(appendedEntrySchema).min(1),
});

export type AppendResult = z.output<typeof appendedEntrySchema>;
export type AppendData = z.output<typeof appendDataSchema>;
