import { z } from "zod";
import { anyId } from "../common.js";
import { RUNTIME_EVENT_KINDS } from "./runtime-event.js";

/** What happened to one envelope of an ingested payload. */
export const ingestedEnvelopeSchema = z.strictObject({
  /** Where it sat in the payload: 0 for a single envelope, its index in a list or in a batch's events. */
  index: z.number().int().min(0),
  envelope_id: anyId,
  event_id: anyId,
  event_kind: z.enum(RUNTIME_EVENT_KINDS),
  session_id: anyId,
  outcome: z.enum(["stored", "skipped"]),
  /** Why it was skipped: which id was already stored; null when stored. */
  reason: z.string().nullable(),
  /** The projected record's id for a stored session_feedback; null for raw evidence only or a skipped envelope. */
  record_id: z.string().nullable(),
});
export type IngestedEnvelope = z.output<typeof ingestedEnvelopeSchema>;

/**
 * The answer to an ingest (seed 004: duplicates "skipped, reported"): how many envelopes were stored, skipped and
 * projected, and each envelope's outcome in payload order.
 */
export const ingestResultSchema = z.strictObject({
  /** The sha256 of the payload's bytes exactly as received. */
  payload_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  payload_form: z.enum(["envelope", "list", "batch"]),
  stored: z.number().int().min(0),
  skipped: z.number().int().min(0),
  projected: z.number().int().min(0),
  envelopes: z.array(ingestedEnvelopeSchema),
});
export type IngestResult = z.output<typeof ingestResultSchema>;
