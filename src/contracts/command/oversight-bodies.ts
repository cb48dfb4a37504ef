import { z } from "zod";
import { isoUtc, nonEmptyString, oneOf, pathSafeId } from "../common.js";
import { type Contract, defineContract } from "../registry.js";
import { defineResponseContract } from "./envelope.js";
import { count, flag, positiveInt } from "./fields.js";

/**
 * The body of POST /theaters/{theater_id}/patrol (observer) and POST /patrol (duty officer), seed 000 §3.6
 * and §3.8, which print no body). Both run with configured thresholds; a caller may tighten the stall threshold for one tick, or
 * ask for a dry run that reports findings without emitting events or reissuing orders.
 */
export const patrolRequestSchema = z.looseObject({
  stall_after_seconds: positiveInt.optional(),
  dry_run: flag.optional(),
});

/**
 * The checks of §3.6 ("Orders stuck in RUNNING too long", "Worktrees exist but no recent commits", "Missing
 * AAR/artifacts", "Dirty worktree states") and §3.8 ("Scan ledger for overdue orders"), one name per finding.
 */
export const PATROL_CHECKS = [
  "stalled_order",
  "overdue_order",
  "stale_worktree",
  "missing_aar",
  "missing_artifacts",
  "dirty_worktree",
  "cut_off_integration",
] as const;

/**
 * What one patrol tick found and did (IronClaw's answer; the seed lists what a tick checks and emits). Observer ticks never reissue, so their reissued list is empty;
 * events_emitted counts RECOVERY_*, ESCALATION_RAISED, INTEGRATION_READY and the like.
 */
export const patrolDataSchema = z.looseObject({
  ticked_at: isoUtc,
  findings: z.array(
    z.looseObject({
      check: z.enum(PATROL_CHECKS, { error: oneOf(PATROL_CHECKS) }),
      order_id: pathSafeId.nullable(),
      detail: nonEmptyString,
    }),
  ),
  reissued_order_ids: z.array(pathSafeId),
  events_emitted: count,
});

export const BACKLOG_TRENDS = ["falling", "steady", "rising"] as const;
export const DUTY_OFFICER_VERDICTS = ["healthy", "ineffective", "dead"] as const;

/**
 * POST /audit (seed 000 §3.9 "Checks last PATROL_TICK", "Checks backlog trend", "ESCALATION_RAISED (CRITICAL) if
 * DO is dead or ineffective"), IronClaw's shape: the sentinel's view of the duty officer. last_patrol_at is null when no
 * PATROL_TICK was ever seen; escalated says whether this audit raised a CRITICAL escalation.
 */
export const auditDataSchema = z.looseObject({
  audited_at: isoUtc,
  last_patrol_at: isoUtc.nullable(),
  backlog: count,
  backlog_trend: z.enum(BACKLOG_TRENDS, { error: oneOf(BACKLOG_TRENDS) }),
  verdict: z.enum(DUTY_OFFICER_VERDICTS, { error: oneOf(DUTY_OFFICER_VERDICTS) }),
  escalated: flag,
});

/**
 * POST /patrol/stop (IronClaw's, not the seed's): an admin stops the duty officer's patrols until the sentinel finds
 * it dead and restarts it, or the host restarts; the answer names the duty officer stopped.
 */
export const patrolStopDataSchema = z.looseObject({ duty_officer: nonEmptyString, stopped: flag });

export type PatrolRequest = z.input<typeof patrolRequestSchema>;
export type PatrolData = z.output<typeof patrolDataSchema>;
export type AuditData = z.output<typeof auditDataSchema>;

export const oversightContracts: Contract[] = [
  defineContract({
    kind: "patrol-request",
    seed: "000",
    title: "Patrol request (POST /theaters/{theater_id}/patrol, POST /patrol)",
    description: "Optional one-tick stall threshold and dry-run flag for an observer or duty-officer patrol.",
    format: "json",
    schema: patrolRequestSchema,
  }),
  defineResponseContract({
    kind: "patrol-response",
    title: "Patrol response",
    description: "The tick's time, its findings, the orders it reissued and how many events it emitted.",
    data: patrolDataSchema,
  }),
  defineResponseContract({
    kind: "audit-response",
    title: "Sentinel audit response (POST /audit)",
    description:
      "The last patrol time, backlog and its trend, the verdict on the duty officer, and escalation.",
    data: auditDataSchema,
  }),
];
