import { z } from "zod";
import type { Issue } from "../../core/index.js";
import { fieldRule, isJsonObject } from "../common.js";
import { defineContract } from "../registry.js";
import { decodeCompletionText } from "./completion-block.js";
import { type CompletionField, jarvisBranchSchema, runIdSchema } from "./run-fields.js";

const text = (what: string) =>
  z.string(fieldRule("must be a string")).regex(/\S/, `must be a non-empty ${what} (not only whitespace)`);

/**
 * The type rule of every completion field (seed 001 "Completion Requirements"), applied whenever the field is
 * present. Which fields must be present is decided separately: by the dispatch's
 * `output_contract.required_fields` in the gate ("completion includes all required artifacts"), and by the
 * seed's full example for the standalone contract. run_id and branch follow the dispatch's rules because gate 3
 * compares them with the dispatch; commit_sha is a git SHA, abbreviated (7, git's default) up to a full SHA-1 (40)
 * or SHA-256 (64); pr_url is a link such as the seed's `https://github.com/...`.
 */
const completionFields = {
  run_id: runIdSchema,
  branch: jarvisBranchSchema,
  commit_sha: z
    .string(fieldRule("must be a string"))
    .regex(/^[0-9a-f]{7,64}$/, "must be a lowercase hex git commit SHA of 7 to 64 characters"),
  // May be empty: an `analyze` or `research` run can finish without touching a file.
  files_changed: z.array(text("file path"), fieldRule("must be an array of file paths")),
  test_result: text("string"),
  risk: text("string"),
  pr_url: z.url({
    protocol: /^https?$/,
    error: "must be an http(s) URL; omit it and give pr_skipped_reason when no pull request was opened",
  }),
  pr_skipped_reason: text("string"),
} satisfies Record<CompletionField, z.ZodType>;

/** Issues for required completion fields that are absent; `pr_url` and `pr_skipped_reason` stand for each other. */
export function missingCompletionFields(
  value: Record<string, unknown>,
  required: readonly CompletionField[],
): Issue[] {
  const present = (field: string) => value[field] !== undefined;
  const issues: Issue[] = [];
  const wantsPr = required.includes("pr_url") || required.includes("pr_skipped_reason");
  if (wantsPr && !present("pr_url") && !present("pr_skipped_reason")) {
    issues.push({
      path: "$.pr_url",
      code: "missing_field",
      message: "pr_url or pr_skipped_reason is required",
    });
  }
  for (const field of new Set(required)) {
    if (field === "pr_url" || field === "pr_skipped_reason" || present(field)) continue;
    issues.push({ path: `$.${field}`, code: "missing_field", message: "is required by the output contract" });
  }
  return issues;
}

const NOT_AN_OBJECT = "completion must be a JSON object";

// Both refinements run even when other fields are wrong (`when`), so that a worker sees every problem at once.
const onObjects = { when: (payload: { value: unknown }) => isJsonObject(payload.value) };

const given = (field: unknown) => field !== undefined && field !== null;
/**
 * "`pr_skipped_reason` may be used instead of `pr_url`": a pull request was either opened or skipped with a
 * reason, and a completion claiming both contradicts itself.
 */
const notBothPrFields = (v: unknown) => !isJsonObject(v) || !given(v.pr_url) || !given(v.pr_skipped_reason);
const notBothMessage = {
  ...onObjects,
  path: ["pr_skipped_reason"],
  message: "must be omitted when pr_url is given (exactly one of pr_url, pr_skipped_reason)",
};

/**
 * Every field typed, none required: what the gate parses before checking the dispatch's required fields. Keys
 * the seed does not name are kept (no seed closes the block); a misspelt required field is still caught as
 * missing, and `ironclaw validate` warns about the misspelling.
 */
export const completionFieldsSchema = z
  .looseObject(completionFields, { error: NOT_AN_OBJECT })
  .partial()
  .refine(notBothPrFields, notBothMessage);

/** A completion block as the seed prints it: every field but the pull-request pair, then exactly one of those. */
export const completionSchema = z
  .looseObject(
    {
      ...completionFields,
      pr_url: completionFields.pr_url.optional(),
      pr_skipped_reason: completionFields.pr_skipped_reason.optional(),
    },
    { error: NOT_AN_OBJECT },
  )
  .refine((v) => !isJsonObject(v) || v.pr_url !== undefined || v.pr_skipped_reason !== undefined, {
    ...onObjects,
    path: ["pr_url"],
    message: "pr_url or pr_skipped_reason is required",
  })
  .refine(notBothPrFields, notBothMessage);

export type Completion = z.output<typeof completionSchema>;
export type CompletionFields = z.output<typeof completionFieldsSchema>;

export const completionContract = defineContract({
  kind: "completion",
  seed: "001",
  title: "Worker completion block",
  description:
    "A worker's full output text holding exactly one <completion> block whose JSON reports run id, branch, " +
    "commit, files changed, test result, risk, and a pull-request URL or the reason none was opened.",
  format: "text",
  schema: completionSchema,
  decodeText: decodeCompletionText,
});
