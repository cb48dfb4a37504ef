import { z } from "zod";
import { commitSha, jsonObject, nonEmptyString } from "../common.js";
import { severitySchema } from "./enums.js";
import type { LedgerEventType } from "./event-types.js";
import { absolutePath, gitBranch, mimeType, positiveInt, text, worktreePath } from "./fields.js";

/** A policy version: a counter the learning service bumps, so versions order and audits compare them. */
export const learningPolicyVersionSchema = positiveInt;

const reason = nonEmptyString;

/**
 * Payload schemas for the event types whose payload the seed spells out or clearly implies. Payloads are
 * loose objects: writers may add keys (diagnostics, timings) without a contract change, but the keys named
 * here must be present and well-formed because projections and the duty officer read them. Types not listed
 * take any JSON object.
 */
export const ledgerEventPayloadSchemas = {
  RUN_UPDATED: z.looseObject({
    objective: nonEmptyString.optional(),
    metadata: jsonObject.optional(),
    policy_version: learningPolicyVersionSchema.optional(),
  }),
  // The duty officer enforces retry caps from the attempt numbers of ORDER_STARTED and ORDER_REISSUED.
  ORDER_STARTED: z.looseObject({ attempt: positiveInt }),
  ORDER_REISSUED: z.looseObject({ attempt: positiveInt, reason: reason.optional() }),
  ORDER_BLOCKED: z.looseObject({ reason: reason.optional() }),
  ORDER_FAILED: z.looseObject({ reason: reason.optional() }),
  WORKTREE_CREATED: z.looseObject({ worktree_path: absolutePath, branch: gitBranch }),
  ARTIFACT_WRITTEN: z.looseObject({ path: worktreePath, type: mimeType.optional() }),
  AAR_WRITTEN: z.looseObject({ path: worktreePath }),
  INTEGRATION_FAILED: z.looseObject({ reason: reason.optional() }),
  INTEGRATED: z.looseObject({ commit_sha: commitSha }),
  ESCALATION_RAISED: z.looseObject({
    severity: severitySchema,
    route: text.min(1, "must not be empty").optional(),
    reason: reason.optional(),
  }),
  RECOVERY_REQUIRED: z.looseObject({ reason }),
  SERVICE_DEGRADED: z.looseObject({ service: nonEmptyString, reason: reason.optional() }),
  SERVICE_RECOVERED: z.looseObject({ service: nonEmptyString }),
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
