import { z } from "zod";
import { anyId, isoUtc, nonEmptyString, oneOf } from "../common.js";
import { type Contract, defineContract } from "../registry.js";
import { defineResponseContract } from "./envelope.js";
import { flag, positiveInt } from "./fields.js";
import { ledgerEventInputSchema } from "./ledger-event.js";

const batchEvents = z
  .array(ledgerEventInputSchema, { error: "must be an array of events" })
  .min(1, "must hold at least one event");

const batchObject = z.looseObject(
  { events: batchEvents },
  { error: 'must be an object { "events": [ … ] } or an array of events' },
);

/** Both accepted forms, as the JSON Schema export and the unknown-key scan see them. */
export const ledgerEventBatchForms = z.union([batchObject, batchEvents]);

/**
 * POST /events/batch (seed 000 §3.3 "Append many events at once"): the seed prints no body, so both natural
 * forms are accepted, `{ "events": [ … ] }` and a bare array of events, and both parse to `{ events }`. The form
 * is picked first so that each event is validated once and paths read as the writer sent them
 * (`$.events[2].run_id` or `$[2].run_id`). Events are appended in order in one transaction; an empty batch is
 * refused because the ledger answers with one entry per appended event. The size of a batch is bounded by the
 * HTTP body limit (payload_too_large), not here.
 */
export const ledgerEventBatchSchema = z.transform((value: unknown, ctx) => {
  if (Array.isArray(value)) {
    const events = batchEvents.safeParse(value);
    if (events.success) return { events: events.data };
    ctx.issues.push(...(events.error.issues as z.core.$ZodRawIssue[]));
    return z.NEVER;
  }
  const batch = batchObject.safeParse(value);
  if (batch.success) return batch.data;
  ctx.issues.push(...(batch.error.issues as z.core.$ZodRawIssue[]));
  return z.NEVER;
});

/**
 * The answer to POST /events and POST /events/batch (IronClaw's; §3.3 prints none, and "idempotency supported
 * via `event_id`" is what duplicate reports): one entry per event in request order, with the id and time the
 * ledger stored it under. duplicate is true when an event with that event_id was already stored,
 * which makes retrying a write safe.
 */
export const ledgerAppendDataSchema = z.looseObject({
  appended: z
    // position: where the event is stored in the global order (the original one for a duplicate).
    .array(z.looseObject({ event_id: anyId, ts: isoUtc, duplicate: flag, position: positiveInt }))
    .min(1, "must hold at least one event"),
});

export const HEALTH_STATUSES = ["ok", "degraded"] as const;

/**
 * GET /health (§3.3 "Healthcheck"; the seed prints no body): a service answers at all only when it is up;
 * degraded means a dependency is failing (§3.8 "SERVICE_DEGRADED if dependencies failing").
 */
export const healthDataSchema = z.looseObject({
  service: nonEmptyString,
  status: z.enum(HEALTH_STATUSES, { error: oneOf(HEALTH_STATUSES) }),
  ts: isoUtc,
});

export type LedgerEventBatch = z.input<typeof ledgerEventBatchForms>;
export type ParsedLedgerEventBatch = z.output<typeof ledgerEventBatchSchema>;
export type LedgerAppendData = z.output<typeof ledgerAppendDataSchema>;
export type HealthData = z.output<typeof healthDataSchema>;

export const ledgerBodyContracts: Contract[] = [
  defineContract({
    kind: "ledger-event-batch",
    seed: "000",
    title: "Ledger event batch (POST /events/batch)",
    description: 'A non-empty { "events": [ … ] } or bare array of events to append in order.',
    format: "json",
    schema: ledgerEventBatchSchema,
    shape: ledgerEventBatchForms,
  }),
  defineResponseContract({
    kind: "ledger-append-response",
    title: "Ledger append response (POST /events, POST /events/batch)",
    description:
      "The stored event_id, ts and global position of each appended event and whether it was a duplicate.",
    data: ledgerAppendDataSchema,
  }),
  defineResponseContract({
    kind: "health-response",
    title: "Health response (GET /health)",
    description: "The service's name, ok or degraded, and the time of the check.",
    data: healthDataSchema,
  }),
];
