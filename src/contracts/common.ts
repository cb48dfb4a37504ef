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
 * An identifier of seed 003's protocol and the warden's API (user, session, call and turn ids): any non-empty
 * token without whitespace. The seed-000/001/002/004 formats below keep to their own seeds' words instead.
 */
export const idString = z
  .string()
  .min(1, "must not be empty")
  .max(128, "must be at most 128 characters")
  .regex(/^\S*$/, "must not contain whitespace");

/**
 * An identifier the seed types only as a string (seed 000 §0 "garrison_id : string"; seed 004 "event_id",
 * "session_id"): any non-empty string. Empty is refused because an empty id identifies nothing.
 */
export const anyId = z.string(fieldRule("must be a string")).min(1, "must not be empty");

const NAME_MAX_BYTES = 200;
const encoder = new TextEncoder();

/** Ids such as ULIDs, UUIDs, `order_001` or `demo`: safe at a glance, so the rules below run only for the rest. */
const COMMON_SAFE_ID = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,49}$/;

const PATH_SAFE_RULES: ReadonlyArray<readonly [(v: string) => boolean, string]> = [
  [(v) => v === "." || v === "..", "must not be . or .."],
  [(v) => /[/\\]/.test(v), "must not contain / or \\: it becomes one path segment"],
  [(v) => /[\s\p{Cc}]/u.test(v), "must not contain whitespace or control characters"],
  [(v) => /[~^:?*[]|@\{/.test(v), "must not contain ~ ^ : ? * [ or @{, which git refuses in branch names"],
  [(v) => /^[-.]/.test(v), "must not start with - or ."],
  [(v) => encoder.encode(v).length > NAME_MAX_BYTES, `must be at most ${NAME_MAX_BYTES} bytes in UTF-8`],
];

/**
 * An identifier that becomes a directory or a git branch name: seed 000's theater_id, run_id, order_id,
 * unit_id and worktree_id (worktrees live at theaters/<theater_id>/worktrees/order_<order_id>, branches are
 * order_<order_id>). The seed types them as strings and ULIDs/UUIDs; what it leaves unsaid, the file system and
 * git decide: one path segment (no separator, not `.` or `..`), nothing git refuses in a ref name, no leading
 * `-` (read as an option) or `.` (a hidden entry, refused by git), and room for a prefix within a file name's
 * 255 bytes. Dots inside the id stay legal because the seed's own examples print placeholders like `01J...`.
 */
export const pathSafeId = z
  .string(fieldRule("must be a string"))
  .min(1, "must not be empty")
  .superRefine((value, ctx) => {
    if (COMMON_SAFE_ID.test(value)) return;
    for (const [isUnsafe, message] of PATH_SAFE_RULES)
      if (isUnsafe(value)) ctx.addIssue({ code: "custom", message, input: value });
  });

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

/**
 * A sha256 digest as seed 002 writes hashes ("artifact_hash": "sha256:...") or bare: 64 lowercase hex characters,
 * with or without the `sha256:` prefix. Real certificates and nodes carry the prefixed form in every hash field;
 * older writers put bare hex in `bundle_sha256` and the like. The value is kept exactly as written, because
 * certificates are hashed as they are (seed 002 §5.3); compare and emit through `normalizeSha256`.
 */
export const sha256Digest = pattern(
  /^(sha256:)?[0-9a-f]{64}$/,
  "must be a sha256 digest: 64 lowercase hex characters, optionally prefixed with sha256:",
);

/** The one spelling IronClaw writes and compares a sha256 digest in: `sha256:<64 hex>`. */
export function normalizeSha256(digest: string): string {
  return digest.startsWith("sha256:") ? digest : `sha256:${digest}`;
}

/** A full git commit SHA (40 hex), the `hex40` of seed 002. */
export const hex40 = pattern(/^[0-9a-f]{40}$/, "must be a 40-character lowercase hex commit SHA");

/**
 * A git commit SHA (seed 000 §0 "commit_sha : git SHA string"), abbreviated or full: git's default abbreviation
 * is 7 hex digits, and a full SHA is 40 (SHA-1) or 64 (SHA-256 repositories).
 */
export const commitSha = pattern(/^[0-9a-f]{7,64}$/, "must be a hex git commit SHA of 7 to 64 characters");

/**
 * A UUID as seed 002 writes "uuid": any 8-4-4-4-12 hex string. The seed names no version or variant, and
 * verifiers only compare ids, so a version-less UUID from another generator is as good as a v4.
 */
export const uuid = z.guid(fieldRule("must be a UUID (8-4-4-4-12 hex digits)"));

/** A JSON object with any members. */
export const jsonObject = z.record(z.string(), z.unknown());
