import { z } from "zod";
import { anyId, expected, isoUtc, pathSafeId } from "../common.js";
import { defineContract } from "../registry.js";
import { payloadSchemaOf } from "./event-payloads.js";
import { checkEventScope, type ScopedIds } from "./event-scope.js";
import { eventTypeSchema } from "./event-types.js";

/** Seed 000 §1 prints `"payload": {}`: an object, free-form except where event-payloads.ts names keys. */
const payload = z.record(z.string(), z.unknown(), { error: expected("a JSON object") });

/**
 * The fields every event shares (seed 000 §1 "Required base event fields"). event_id is any non-empty string
 * (the seed prints `01J...` and names no format); garrison_id is "string"; the other ids become paths and
 * branch names, so they are path-safe; ts is "ISO-8601 UTC" in the form §0 prints. Keys the seed does not name
 * are accepted and stored with the event, unchanged.
 */
const baseFields = {
  type: eventTypeSchema,
  garrison_id: anyId,
  // Nullable because system and incident events may concern no theater or run; checkEventScope says when.
  theater_id: pathSafeId.nullable(),
  run_id: pathSafeId.nullable(),
  payload,
};

function checkEvent(event: ScopedIds & { payload: Record<string, unknown> }, ctx: z.RefinementCtx): void {
  for (const problem of checkEventScope(event)) {
    ctx.addIssue({ code: "custom", message: problem.message, path: [problem.field] });
  }
  const schema = payloadSchemaOf(event.type);
  const result = schema?.safeParse(event.payload);
  if (result && !result.success) {
    for (const issue of result.error.issues) {
      ctx.addIssue({ code: "custom", message: issue.message, path: ["payload", ...issue.path] });
    }
  }
}

/** A stored ledger event (seed 000 §1): every base field present, ids null where the event has none. */
export const ledgerEventSchema = z
  .looseObject({
    event_id: anyId,
    ts: isoUtc,
    ...baseFields,
    order_id: pathSafeId.nullable(),
    unit_id: pathSafeId.nullable(),
  })
  .superRefine(checkEvent);

/**
 * The body of POST /events (seed 000 §3.3, whose example leaves out event_id and ts). The ledger assigns a ULID
 * event_id and an ISO-8601 UTC ts when they are omitted; a writer that wants idempotent retries sends its own
 * event_id ("idempotency supported via `event_id`"). run_id must be written
 * out (null for system events) so that forgetting it is an error rather than a silent system event; order_id
 * and unit_id may be left out.
 */
export const ledgerEventInputSchema = z
  .looseObject({
    event_id: anyId.optional(),
    ts: isoUtc.optional(),
    ...baseFields,
    order_id: pathSafeId.nullish(),
    unit_id: pathSafeId.nullish(),
  })
  .superRefine(checkEvent);

export type LedgerEvent = z.output<typeof ledgerEventSchema>;
export type LedgerEventInput = z.input<typeof ledgerEventInputSchema>;
export type ParsedLedgerEventInput = z.output<typeof ledgerEventInputSchema>;

export const ledgerEventContract = defineContract({
  kind: "ledger-event",
  seed: "000",
  title: "Ledger event",
  description:
    "A stored, immutable ledger event: event_id, ts, type, garrison/theater/run/order/unit ids and a payload. " +
    "Typo spellings ORDER CLAIMED and WORKTREE_Removed are read as ORDER_CLAIMED and WORKTREE_REMOVED.",
  format: "json",
  schema: ledgerEventSchema,
});

export const ledgerEventInputContract = defineContract({
  kind: "ledger-event-input",
  seed: "000",
  title: "Ledger event input (POST /events)",
  description:
    "One event to append. event_id and ts may be omitted (the ledger assigns a ULID and the current UTC time); " +
    "order_id and unit_id may be omitted or null for events that have none.",
  format: "json",
  schema: ledgerEventInputSchema,
});
