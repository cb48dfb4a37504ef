import { z } from "zod";
import { artifactRef, fieldRule, pattern, rfc3339 } from "../common.js";

/** Field formats particular to seed 002; the general ones (digests, UUIDs, commit SHAs) live in `common.ts`. */

const S3 = "s3:\\/\\/[^\\s/]+\\/\\S+";
const ARTIFACT = "artifact:\\/\\/\\S+";

/** `s3://bucket/key` or `artifact://id`: where seed 002 stores workspaces, snapshots and responses. */
export const storedRefField = pattern(
  new RegExp(`^(${S3}|${ARTIFACT})$`),
  "must be an s3://bucket/key or artifact://id reference",
);

export const s3RefField = pattern(new RegExp(`^${S3}$`), "must be an s3://bucket/key reference");

/** Any artifact locator, including `gh-artifact://<gh_run_id>/<artifact_name>` for GitHub-hosted bundles. */
export const locatorField = artifactRef;

export const ratchetStepField = z
  .int(fieldRule("must be an integer"))
  .min(0, "must be a non-negative integer");

/** RFC 3339 with `Z` or an offset; `common.rfc3339` checks the calendar, this adds the missing-key message. */
export const rfc3339Field = z.string(fieldRule("must be an RFC 3339 time")).pipe(rfc3339);

/** The object's own type error as a sentence naming the record, for a root that is not a JSON object. */
export const recordOf = (what: string) => ({
  error: (issue: { code?: string; input?: unknown }) => {
    if (issue.code !== "invalid_type") return undefined;
    return issue.input === undefined ? "is required" : `${what} must be a JSON object`;
  },
});
