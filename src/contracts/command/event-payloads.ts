import { z } from "zod";
import { commitSha, jsonObject, nonEmptyString } from "../common.js";
import { severitySchema } from "./enums.js";
import type { LedgerEventType } from "./event-types.js";
import { absolutePath, gitBranch, mimeType, positiveInt, text, worktreePath } from "./fields.js";

/**
 * A policy version (seed 000 §3.10 "Emits RUN_UPDATED (policy version) or POLICY_UPDATED"). The seed gives it no
 * form: IronClaw's learning service writes a counter it bumps (1, 2, …), other writers may use a name or date.
 */
export const learningPolicyVersionSchema = z.union([positiveInt, nonEmptyString], {
  error: (issue) =>
    issue.input === undefined
      ? "is required"
      : "must be a version: a whole number from 1, or a non-empty string",
});

const reason = nonEmptyString;

/**
 * Payload schemas for the event types whose payload the seed spells out or clearly implies; each key names its
 * seed line. Payloads are open: writers may add keys (diagnostics, timings), but the keys named here must be
 * present and well-formed because projections and the duty officer read them. Types not listed take any object.
 */
export const ledgerEventPayloadSchemas = {
  // §1 "RUN_UPDATED (objective/metadata change)", §3.10 "RUN_UPDATED (policy version)".
  RUN_UPDATED: z.looseObject({
    objective: nonEmptyString.optional(),
    metadata: jsonObject.optional(),
    policy_version: learningPolicyVersionSchema.optional(),
  }),
  // §3.3 prints ORDER_STARTED with `"payload": { "attempt": 1 }`; the duty officer enforces retry caps from the
  // attempt numbers of ORDER_STARTED and ORDER_REISSUED (§3.8 "Reissue orders within retry caps").
  ORDER_STARTED: z.looseObject({ attempt: positiveInt }),
  ORDER_REISSUED: z.looseObject({ attempt: positiveInt, reason: reason.optional() }),
  ORDER_BLOCKED: z.looseObject({ reason: reason.optional() }),
  ORDER_FAILED: z.looseObject({ reason: reason.optional() }),
  // §3.4: POST /worktrees answers worktree_path and branch and "Emits events: WORKTREE_CREATED".
  WORKTREE_CREATED: z.looseObject({ worktree_path: absolutePath, branch: gitBranch }),
  // §4 "ORDER_COMPLETED or ORDER_FAILED plus artifact/AAR pointers": a pointer is a path in the worktree.
  ARTIFACT_WRITTEN: z.looseObject({ path: worktreePath, type: mimeType.optional() }),
  AAR_WRITTEN: z.looseObject({ path: worktreePath, summary: text.optional() }),
  INTEGRATION_FAILED: z.looseObject({ reason: reason.optional() }),
  // §3.7 "INTEGRATED (with commit SHA)".
  INTEGRATED: z.looseObject({ commit_sha: commitSha }),
  // §3.6 "ESCALATION_RAISED (severity, route)", severity from §0's enum.
  ESCALATION_RAISED: z.looseObject({
    severity: severitySchema,
    route: text.min(1, "must not be empty").optional(),
    reason: reason.optional(),
  }),
  // §3.6 names no payload for the acknowledgement; IronClaw's writers name the ESCALATION_RAISED event acked, who
  // acked it and from which channel (`api`, `telegram:<bot>`). Typed when present, so other writers stay free.
  ESCALATION_ACKED: z.looseObject({
    escalation_id: nonEmptyString.optional(),
    acked_by: nonEmptyString.optional(),
    channel: nonEmptyString.optional(),
  }),
  // §3.6 "RECOVERY_REQUIRED (with reason)".
  RECOVERY_REQUIRED: z.looseObject({ reason }),
  // §3.8 "SERVICE_DEGRADED if dependencies failing" names no payload; these keys are typed when present.
  SERVICE_DEGRADED: z.looseObject({ service: nonEmptyString.optional(), reason: reason.optional() }),
  SERVICE_RECOVERED: z.looseObject({ service: nonEmptyString.optional() }),
  // §3.10 "POLICY_UPDATED (optional event type)" carries the policy version it announces.
  POLICY_UPDATED: z.looseObject({ policy_version: learningPolicyVersionSchema }),
} as const satisfies Partial<Record<LedgerEventType, z.ZodType>>;

type PayloadSchemas = typeof ledgerEventPayloadSchemas;

/** The payload type of each event type with a typed payload, e.g. `LedgerEventPayloads["ORDER_STARTED"]`. */
export type LedgerEventPayloads = { [K in keyof PayloadSchemas]: z.output<PayloadSchemas[K]> };

/** The payload schema of an event type, or undefined when its payload is free-form. */
export function payloadSchemaOf(type: LedgerEventType): z.ZodType | undefined {
  return Object.hasOwn(ledgerEventPayloadSchemas, type)
    ? ledgerEventPayloadSchemas[type as keyof PayloadSchemas]
    : undefined;
}
