import { z } from "zod";

// One message for every absent required key, whatever its type: zod's default ("expected string, received
// undefined") names neither the problem nor the rule. Schemas with their own `error` option still win.
z.config({
  customError: (issue) =>
    issue.code === "invalid_type" && issue.input === undefined ? "is required" : undefined,
});

/** Issues a schema raises about its own value: wrong type, value outside an enum or literal, bad format. */
const OWN_ISSUES = new Set(["invalid_type", "invalid_value", "invalid_format"]);

type IssueMessage = (issue: { code?: string; input?: unknown }) => string | undefined;

/**
 * The `error` option for a field's own checks: "is required" when the key is absent, the field's rule (a whole
 * sentence such as "must be a UUID") otherwise. Other issues the schema raises itself (an object's unknown keys)
 * keep zod's message, and rules on the value (length, pattern) carry their own.
 */
export function fieldRule(rule: string): { error: IssueMessage } {
  return {
    error: (issue) => {
      if (!OWN_ISSUES.has(issue.code ?? "")) return undefined;
      return issue.input === undefined ? "is required" : rule;
    },
  };
}

/** `fieldRule` for a type: "is required" or "must be <what>". */
export function expected(what: string): IssueMessage {
  return fieldRule(`must be ${what}`).error;
}

/** The message of an enum: the allowed values, in order, so the reader can fix a typo at once. */
export function oneOf(values: readonly string[]): IssueMessage {
  return expected(`one of ${values.join(", ")}`);
}

export const aString = () => z.string({ error: expected("a string") });
export const aNumber = () => z.number({ error: expected("a number") });
export const aBoolean = () => z.boolean({ error: expected("true or false") });

export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * Shared field formats. Identifier fields accept any non-empty token without whitespace: the seeds name ULIDs
 * and UUIDs but print examples such as `run_123` and `01J...`, and IronClaw itself generates ULIDs.
 */
export const idString = z
  .string()
  .min(1, "must not be empty")
  .max(128, "must be at most 128 characters")
  .regex(/^\S*$/, "must not contain whitespace");

export const nonEmptyString = z.string().min(1, "must be a non-empty string");

const ISO_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

function isRealDate(value: string): boolean {
  const [date, time] = value.split(/[Tt ]/);
  if (date === undefined || time === undefined) return false;
  const [y, m, d] = date.split("-").map(Number);
  if (y === undefined || m === undefined || d === undefined) return false;
  const probe = new Date(Date.UTC(y, m - 1, d));
  const [hh, mm, ss] = time.slice(0, 8).split(":").map(Number);
  return (
    probe.getUTCFullYear() === y &&
    probe.getUTCMonth() === m - 1 &&
    probe.getUTCDate() === d &&
    (hh ?? 99) < 24 &&
    (mm ?? 99) < 60 &&
    (ss ?? 99) < 61
  );
}

/** ISO-8601 UTC time with a `Z` suffix, as seed 000 prescribes: `2026-01-14T16:21:00Z`. */
export const isoUtc = z
  .string()
  .refine((v) => ISO_UTC.test(v) && isRealDate(v), "must be an ISO-8601 UTC time like 2026-01-14T16:21:00Z");

/** RFC 3339 time with `Z` or a numeric offset (seeds 002 and 004): `2026-03-13T18:22:41+00:00`. */
export const rfc3339 = z
  .string()
  .refine((v) => RFC3339.test(v) && isRealDate(v), "must be an RFC 3339 time like 2026-03-13T18:22:41+00:00");

/** A string field that must match a pattern; the rule is the message for both a wrong type and a mismatch. */
export const pattern = (re: RegExp, rule: string) => z.string(fieldRule(rule)).regex(re, rule);

/** A bare sha256 digest, 64 lowercase hex characters: a hash is compared as a string, so it has one spelling. */
export const sha256HexDigest = pattern(
  /^[0-9a-f]{64}$/,
  "must be a 64-character lowercase hex sha256 digest",
);

/** `sha256:<64 hex>` — the prefixed digest form of seed 002. */
export const sha256Ref = pattern(
  /^sha256:[0-9a-f]{64}$/,
  "must be sha256: followed by 64 lowercase hex characters",
);

/** A full git commit SHA (40 hex), the `hex40` of seed 002. */
export const hex40 = pattern(/^[0-9a-f]{40}$/, "must be a 40-character lowercase hex commit SHA");

/** A git commit SHA, abbreviated (7+) or full. */
export const commitSha = pattern(/^[0-9a-f]{7,64}$/, "must be a hex git commit SHA of 7 to 64 characters");

export const uuid = z.uuid(fieldRule("must be a UUID"));

/** An artifact locator: `s3://…`, `artifact://…` or `gh-artifact://<run_id>/<artifact_name>` (seed 002). */
export const artifactRef = pattern(
  /^(s3:\/\/[^\s/]+\/\S+|artifact:\/\/\S+|gh-artifact:\/\/\d+\/[^\s/]+)$/,
  "must be an artifact locator: s3://bucket/key, artifact://id or gh-artifact://<run_id>/<name>",
);

/** A JSON object with any members. */
export const jsonObject = z.record(z.string(), z.unknown());
