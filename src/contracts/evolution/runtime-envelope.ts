import { z } from "zod";
import { anyId, aString, jsonObject, rfc3339 } from "../common.js";
import { defineContract } from "../registry.js";
import { runtimeEventSchema } from "./runtime-event.js";

export const RUNTIME_EVENT_CONTRACT_NAME = "openclaw_appleseed.runtime_event";
export const RUNTIME_EVENT_CONTRACT_VERSION = "1.0";

/** The header both forms print: `"contract_name": "openclaw_appleseed.runtime_event"`, `"contract_version": "1.0"`. */
const contractFields = {
  contract_name: z.literal(RUNTIME_EVENT_CONTRACT_NAME, `must be ${RUNTIME_EVENT_CONTRACT_NAME}`),
  contract_version: z.literal(RUNTIME_EVENT_CONTRACT_VERSION, `must be ${RUNTIME_EVENT_CONTRACT_VERSION}`),
  source: aString().min(1, "must not be empty"),
  metadata: jsonObject.optional(),
};

/**
 * One event as the runtime sends it (seed 004 "Per-event envelope"). The seed prints a UUID as envelope_id but
 * types it nowhere, so any non-empty string; like the event's own id ("Appleseed will generate one when
 * omitted") it may be left to the receiver, and so may recorded_at, which the batch form never carries.
 */
export const runtimeEventEnvelopeSchema = z.looseObject({
  ...contractFields,
  envelope_id: anyId.optional(),
  recorded_at: rfc3339.optional(),
  event: runtimeEventSchema,
});
export type RuntimeEventEnvelope = z.output<typeof runtimeEventEnvelopeSchema>;

/** "a list of event envelopes"; an empty list is one too, and ingests nothing. */
export const runtimeEventListSchema = z.array(
  runtimeEventEnvelopeSchema,
  "must be a JSON array of event envelopes",
);
export type RuntimeEventList = z.output<typeof runtimeEventListSchema>;

/** Several events under one envelope header (seed 004 "Batch form"); the header applies to each event. */
export const runtimeEventBatchSchema = z.looseObject({
  ...contractFields,
  events: z.array(runtimeEventSchema, "must be an array of events"),
});
export type RuntimeEventBatch = z.output<typeof runtimeEventBatchSchema>;

export const runtimeEventEnvelopeContract = defineContract({
  kind: "runtime-event-envelope",
  seed: "004",
  title: "Appleseed runtime event envelope",
  description:
    "One OpenClaw/Appleseed runtime event (openclaw_appleseed.runtime_event 1.0) wrapped in its envelope: " +
    "envelope_id, recorded_at, source, metadata and a session_started or session_feedback event body.",
  format: "json",
  schema: runtimeEventEnvelopeSchema,
});

export const runtimeEventListContract = defineContract({
  kind: "runtime-event-list",
  seed: "004",
  title: "Appleseed runtime event envelope list",
  description: "A JSON array of one or more per-event runtime event envelopes.",
  format: "json",
  schema: runtimeEventListSchema,
});

export const runtimeEventBatchContract = defineContract({
  kind: "runtime-event-batch",
  seed: "004",
  title: "Appleseed runtime event batch",
  description:
    "Several runtime events under one header (contract_name, contract_version, source, metadata); each event " +
    "becomes its own envelope on ingest, with the batch metadata copied onto it.",
  format: "json",
  schema: runtimeEventBatchSchema,
});
