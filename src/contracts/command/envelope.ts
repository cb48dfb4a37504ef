import { z } from "zod";
import { expected, jsonObject, nonEmptyString } from "../common.js";
import { defineContract } from "../registry.js";

/** The error codes IronClaw's services answer with; the HTTP status follows from the code. */
export const ERROR_CODES = [
  "bad_request",
  "validation_failed",
  "unauthorized",
  "forbidden",
  "not_found",
  "conflict",
  "illegal_transition",
  "payload_too_large",
  "rate_limited",
  "internal",
  "unavailable",
  "timeout",
] as const;

export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * An error code on the wire is any non-empty string, not only one of ERROR_CODES: the seed prints
 * `"code": "..."` and names no list, and envelopes from other services carry codes of their own. Clients switch
 * on the codes they know and fall back on the message for the rest; `fail` only builds known codes.
 */
export const errorCodeSchema = z
  .string({ error: expected("an error code such as not_found") })
  .min(1, "must not be empty");

export const errorBodySchema = z.looseObject(
  {
    code: errorCodeSchema,
    message: nonEmptyString,
    // Free-form on purpose: validation issues, the conflicting event, a retry-after hint.
    details: jsonObject.optional(),
  },
  {
    error: (issue) =>
      issue.input === null ? "must be { code, message } when ok is false" : "must be { code, message }",
  },
);

export type ErrorBody = z.output<typeof errorBodySchema>;

export type Envelope<T> = { ok: true; data: T; error: null } | { ok: false; data: null; error: ErrorBody };

// Seed 000 §0 "Response envelopes (recommended)": `{ "ok": true, "data": { ... }, "error": null }` and on error
// `{ "ok": false, "data": null, "error": { "code": "...", "message": "..." } }`; details is IronClaw's addition.
const nullOnSuccess = z.null({ error: "must be null when ok is true" });
const nullOnFailure = z.null({ error: "must be null when ok is false" });

/** The `{ ok, data, error }` envelope (seed 000 §0) around a service's data schema. */
export function envelopeSchema<T extends z.ZodType>(data: T) {
  return z.discriminatedUnion(
    "ok",
    [
      z.looseObject({ ok: z.literal(true), data, error: nullOnSuccess }),
      z.looseObject({ ok: z.literal(false), data: nullOnFailure, error: errorBodySchema }),
    ],
    {
      error: (issue) => (issue.input === undefined ? "is required (true or false)" : "must be true or false"),
    },
  );
}

export function ok<T>(data: T): Envelope<T> {
  return { ok: true, data, error: null };
}

export function fail(code: ErrorCode, message: string, details?: Record<string, unknown>): Envelope<never> {
  return {
    ok: false,
    data: null,
    error: details === undefined ? { code, message } : { code, message, details },
  };
}

/** The envelope without knowing which service sent it: data is any JSON value except null. */
const anyData = z.json().refine((v) => v !== null, "must be present (not null) when ok is true");

export const genericEnvelopeSchema = envelopeSchema(anyData);

export const envelopeContract = defineContract({
  kind: "envelope",
  seed: "000",
  title: "Response envelope",
  description:
    "The { ok, data, error } envelope every service may answer with: ok=true carries data and error null; " +
    "ok=false carries data null and error { code, message, details? }.",
  format: "json",
  schema: genericEnvelopeSchema,
});

/**
 * A service response as it travels: the envelope around one endpoint's data. Registered as a whole so that
 * the seed's printed responses validate verbatim and an error reply is also a valid response.
 */
export function defineResponseContract<T extends z.ZodType>(spec: {
  kind: string;
  title: string;
  description: string;
  data: T;
}) {
  return defineContract({
    kind: spec.kind,
    seed: "000",
    title: spec.title,
    description: `${spec.description} Wrapped in the { ok, data, error } envelope.`,
    format: "json",
    schema: envelopeSchema(spec.data),
  });
}
