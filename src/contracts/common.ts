import { z } from "zod";

/**
 * Shared field formats. Identifier fields accept any non-empty token without whitespace: the seeds name ULIDs
 * and UUIDs but print examples such as `run_123` and `01J...`, and IronClaw itself generates ULIDs.
 */
export const idString = z
  .string()
  .min(1, "must not be empty")
  .max(128, "must be at most 128 characters")
  .regex(/^\S+$/, "must not contain whitespace");

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

/** A lowercase or uppercase hex sha256 digest, 64 characters. */
export const sha256HexDigest = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, "must be a 64-character hex sha256 digest");

/** `sha256:<64 hex>` — the prefixed digest form of seed 002. */
export const sha256Ref = z
  .string()
  .regex(/^sha256:[0-9a-f]{64}$/, "must be sha256: followed by 64 lowercase hex characters");

/** A full git commit SHA (40 hex), the `hex40` of seed 002. */
export const hex40 = z.string().regex(/^[0-9a-f]{40}$/, "must be a 40-character lowercase hex commit SHA");

/** A git commit SHA, abbreviated (7+) or full. */
export const commitSha = z
  .string()
  .regex(/^[0-9a-f]{7,64}$/, "must be a hex git commit SHA of 7 to 64 characters");

export const uuid = z.uuid({ message: "must be a UUID" });

/** An artifact locator: `s3://…`, `artifact://…` or `gh-artifact://<run_id>/<artifact_name>` (seed 002). */
export const artifactRef = z
  .string()
  .regex(
    /^(s3:\/\/[^\s/]+\/\S+|artifact:\/\/\S+|gh-artifact:\/\/\d+\/[^\s/]+)$/,
    "must be an artifact locator: s3://bucket/key, artifact://id or gh-artifact://<run_id>/<name>",
  );

/** A JSON object with any members. */
export const jsonObject = z.record(z.string(), z.unknown());
