import { z } from "zod";
import { defineContract } from "../registry.js";
import {
  runtimeEventBatchSchema,
  runtimeEventEnvelopeSchema,
  runtimeEventListSchema,
} from "./runtime-envelope.js";

export type RuntimeEventPayloadForm = "list" | "batch" | "envelope";

/** Which of the three accepted forms a decoded payload is: an array, an object with `events`, or an envelope. */
export function payloadForm(value: unknown): RuntimeEventPayloadForm {
  if (Array.isArray(value)) return "list";
  if (typeof value === "object" && value !== null && "events" in value) return "batch";
  return "envelope";
}

const formSchemas = {
  list: runtimeEventListSchema,
  batch: runtimeEventBatchSchema,
  envelope: runtimeEventEnvelopeSchema,
} as const;

const anyForm = z.union([runtimeEventListSchema, runtimeEventBatchSchema, runtimeEventEnvelopeSchema]);

/**
 * Whatever Appleseed accepts on ingest (seed 004 "Appleseed accepts a single event envelope, a list of event
 * envelopes, or a batch object with events"): one envelope, a list of envelopes, or a batch. The form is decided
 * first and only that form's problems are reported; a plain union would also report why the input is not one
 * of the other forms. The union after the pipe is the type and what the JSON Schema export shows: the input
 * is a bare z.transform (not z.unknown().transform) because the export skips only a bare transform.
 */
export const runtimeEventPayloadSchema = z
  .transform((value: unknown, ctx) => {
    const result = formSchemas[payloadForm(value)].safeParse(value);
    if (!result.success) {
      // The issues are final (path and message set) and pass through as they are.
      ctx.issues.push(...(result.error.issues as z.core.$ZodRawIssue[]));
      return z.NEVER;
    }
    return value;
  })
  .pipe(anyForm);
export type RuntimeEventPayload = z.output<typeof runtimeEventPayloadSchema>;

export const runtimeEventPayloadContract = defineContract({
  kind: "runtime-event-payload",
  seed: "004",
  title: "Appleseed runtime event payload",
  description:
    "Anything the runtime may send to Appleseed: a single event envelope, a JSON array of envelopes, or a " +
    "batch object with events.",
  format: "json",
  schema: runtimeEventPayloadSchema,
});
