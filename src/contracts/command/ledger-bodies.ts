import { z } from "zod";
import { idString, isoUtc, nonEmptyString, oneOf } from "../common.js";
import { type Contract, defineContract } from "../registry.js";
import { defineResponseContract } from "./envelope.js";
import { flag, positiveInt } from "./fields.js";
import { ledgerEventInputSchema } from "./ledger-event.js";

/**
 * POST /events/batch (seed 000 §3.3): `{ "events": [ … ] }`, appended in order in one transaction. Only the
 * object form is accepted: it matches every other body, leaves room for batch-level fields, and a bare array
 * gets a message saying what to send instead. The size of a batch is bounded by the HTTP body limit
 * (payload_too_large), not here.
 */
export const ledgerEventBatchSchema = z.strictObject(
  {
    events: z
      .array(ledgerEventInputSchema, { error: "must be an array of events" })
      .min(1, "must hold at least one event"),
  },
  {
    error: (issue) =>
      Array.isArray(issue.input)
        ? 'must be an object { "events": [ … ] }, not a bare array'
        : 'must be an object { "events": [ … ] }',
  },
);

/**
 * The answer to POST /events and POST /events/batch: one entry per event in request order, with the id and
 * time the ledger stored it under. duplicate is true when an event with that event_id was already stored,
 * which makes retrying a write safe.
 */
export const ledgerAppendDataSchema = z.strictObject({
  appended: z
    // position: where the event is stored in the global order (the original one for a duplicate).
    .array(z.strictObject({ event_id: idString, ts: isoUtc, duplicate: flag, position: positiveInt }))
    .min(1, "must hold at least one event"),
});

export const HEALTH_STATUSES = ["ok", "degraded"] as const;

/** GET /health: a service answers at all only when it is up; degraded means a dependency is failing. */
export const healthDataSchema = z.strictObject({
  service: nonEmptyString,
  status: z.enum(HEALTH_STATUSES, { error: oneOf(HEALTH_STATUSES) }),
  ts: isoUtc,
});

export type LedgerEventBatch = z.input<typeof ledgerEventBatchSchema>;
export type ParsedLedgerEventBatch = z.output<typeof ledgerEventBatchSchema>;
export type LedgerAppendData = z.output<typeof ledgerAppendDataSchema>;
export type HealthData = z.output<typeof healthDataSchema>;

export const ledgerBodyContracts: Contract[] = [
  defineContract({
    kind: "ledger-event-batch",
    seed: "000",
    title: "Ledger event batch (POST /events/batch)",
    description: 'A non-empty { "events": [ … ] } of events to append in order; a bare array is refused.',
    format: "json",
    schema: ledgerEventBatchSchema,
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
