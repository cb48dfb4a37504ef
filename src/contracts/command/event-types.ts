import { z } from "zod";

/**
 * Every ledger event type of seed 000 §1, in the seed's order, with the canonical spelling of its two typos,
 * plus POLICY_UPDATED, which §3.10 names as the learning service's optional event.
 */
export const LEDGER_EVENT_TYPES = [
  "RUN_CREATED",
  "RUN_UPDATED",
  "RUN_COMPLETED",
  "RUN_FAILED",
  "RUN_CANCELLED",
  "ORDER_CREATED",
  "ORDER_ENQUEUED",
  "ORDER_CLAIMED",
  "ORDER_STARTED",
  "ORDER_BLOCKED",
  "ORDER_COMPLETED",
  "ORDER_FAILED",
  "ORDER_REISSUED",
  "ORDER_CANCELLED",
  "WORKTREE_CREATED",
  "WORKTREE_READY",
  "WORKTREE_ARCHIVED",
  "WORKTREE_REMOVED",
  "ARTIFACT_WRITTEN",
  "AAR_WRITTEN",
  "INTEGRATION_READY",
  "INTEGRATION_STARTED",
  "INTEGRATION_PASSED",
  "INTEGRATION_FAILED",
  "INTEGRATED",
  "ESCALATION_RAISED",
  "ESCALATION_ACKED",
  "RECOVERY_REQUIRED",
  "RECOVERY_STARTED",
  "RECOVERY_COMPLETED",
  "PATROL_TICK",
  "SERVICE_DEGRADED",
  "SERVICE_RECOVERED",
  "POLICY_UPDATED",
] as const;

export type LedgerEventType = (typeof LEDGER_EVENT_TYPES)[number];

/** The seed's typo spellings, accepted on input and always rewritten to the canonical name. */
export const EVENT_TYPE_ALIASES = {
  "ORDER CLAIMED": "ORDER_CLAIMED",
  WORKTREE_Removed: "WORKTREE_REMOVED",
} as const satisfies Record<string, LedgerEventType>;

const ACCEPTED = [
  ...LEDGER_EVENT_TYPES,
  ...(Object.keys(EVENT_TYPE_ALIASES) as Array<keyof typeof EVENT_TYPE_ALIASES>),
];
const CANONICAL = new Set<string>(LEDGER_EVENT_TYPES);

/** The canonical name of an event type, or undefined when the name is neither canonical nor a known typo. */
export function normalizeEventType(name: string): LedgerEventType | undefined {
  if (CANONICAL.has(name)) return name as LedgerEventType;
  return Object.hasOwn(EVENT_TYPE_ALIASES, name)
    ? EVENT_TYPE_ALIASES[name as keyof typeof EVENT_TYPE_ALIASES]
    : undefined;
}

/**
 * An event type on input. The message lists only canonical names: the typo spellings are tolerated for old
 * writers, never advertised.
 */
export const eventTypeSchema = z
  .enum(ACCEPTED, {
    error: (issue) =>
      `${issue.input === undefined ? "is required" : "must be a known event type"}: one of ${LEDGER_EVENT_TYPES.join(", ")}`,
  })
  .transform((name): LedgerEventType => normalizeEventType(name) ?? (name as LedgerEventType));
