import { z } from "zod";
import { fieldRule, pattern, rfc3339 } from "../common.js";

/** Field formats particular to seed 002; the general ones (digests, UUIDs, commit SHAs) live in `common.ts`. */

/**
 * Where seed 002 stores workspaces, snapshots, responses, proofs and bundles. The seed prints `s3://...`,
 * `artifact://...` and `gh-artifact://<gh_run_id>/<artifact_name>`, but real agent_swarm producers also write
 * `local://…` and run ids that are not numbers: issue #36 asks `validate` to read any `scheme://` locator and
 * leave whether the bytes behind it are true to `verify`. A bare path (no scheme) is still refused: it names no
 * store.
 */
export const locatorField = pattern(
  /^[A-Za-z][A-Za-z0-9+.-]*:\/\/\S+$/,
  "must be a scheme://… locator (artifact://, s3://, gh-artifact://, local://…)",
);

/** A run id as producers write it: GitHub's numeric run id, or a string such as `run-1`. */
const RUN_ID_RULE = "must be a run id: a non-negative integer or a non-empty string";
export const runIdField = z.union(
  [z.int({ error: RUN_ID_RULE }).min(0, RUN_ID_RULE), z.string({ error: RUN_ID_RULE }).min(1, RUN_ID_RULE)],
  { error: RUN_ID_RULE },
);

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
