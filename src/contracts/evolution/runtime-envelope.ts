import { z } from "zod";
import { aString, jsonObject, rfc3339, uuid } from "../common.js";
import { defineContract } from "../registry.js";
import { runtimeEventSchema } from "./runtime-event.js";

export const RUNTIME_EVENT_CONTRACT_NAME = "openclaw_appleseed.runtime_event";
export const RUNTIME_EVENT_CONTRACT_VERSION = "1.0";

const contractFields = {
  contract_name: z.literal(RUNTIME_EVENT_CONTRACT_NAME, `must be ${RUNTIME_EVENT_CONTRACT_NAME}`),
  contract_version: z.literal(RUNTIME_EVENT_CONTRACT_VERSION, `must be ${RUNTIME_EVENT_CONTRACT_VERSION}`),
  source: aString().min(1, "must not be empty"),
  metadata: jsonObject.optional(),
};

/**
 * One event as the runtime sends it (seed 004 "Per-event envelope"). The runtime records when it wrote the
 * envelope; the envelope id may be left to the receiver, like the event's own id.
 */
export const runtimeEventEnvelopeSchema = z.strictObject({
  ...contractFields,
  envelope_id: uuid.optional(),
  recorded_at: rfc3339,
  event: runtimeEventSchema,
});
export type RuntimeEventEnvelope = z.output<typeof runtimeEventEnvelopeSchema>;

export const runtimeEventListSchema = z
  .array(runtimeEventEnvelopeSchema, "must be a JSON array of event envelopes")
  .min(1, "must contain at least one envelope");
export type RuntimeEventList = z.output<typeof runtimeEventListSchema>;

/** Several events under one envelope header (seed 004 "Batch form"); the header applies to each event. */
export const runtimeEventBatchSchema = z.strictObject({
  ...contractFields,
  events: z.array(runtimeEventSchema, "must be an array of events").min(1, "must contain at least one event"),
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
