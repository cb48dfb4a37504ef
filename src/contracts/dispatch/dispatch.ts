import { z } from "zod";
import { fieldRule } from "../common.js";
import { defineContract } from "../registry.js";
import { COMPLETION_FIELDS, type CompletionField, jarvisBranchSchema, runIdSchema } from "./run-fields.js";

/** Seed 001: "`task_type` | one of `analyze`, `implement`, `fix`, `refactor`, `test`, `release`, `research`, `code`". */
export const TASK_TYPES = [
  "analyze",
  "implement",
  "fix",
  "refactor",
  "test",
  "release",
  "research",
  "code",
] as const;

/**
 * Seed 001: "`repo` | required in `owner/repo` format": two non-empty names joined by exactly one slash. Neither
 * may be `.` or `..` (the repository becomes a clone directory) or hold whitespace; the host's own naming rules
 * are left to the host.
 */
const OWNER_REPO = /^(?!\.\.?\/)[^\s/]+\/(?!\.\.?$)[^\s/]+$/;

const NOT_AN_OBJECT = "dispatch must be a JSON object (plain text is rejected)";

/** Seed 001 "non-empty string": a string with something in it besides whitespace. */
const commandText = (what: string) =>
  z.string(fieldRule("must be a string")).regex(/\S/, `must be a non-empty ${what} (not only whitespace)`);

/**
 * The completion fields every dispatch must ask for. Seed 001's rule reads "`output_contract.required_fields` |
 * required non-empty array containing completion fields", and its "Completion Requirements" list them all: the
 * seed's dispatch asks for each, and the pull request may be answered by `pr_url` or, "instead of `pr_url`",
 * by `pr_skipped_reason`. A dispatch that asks for less would let a worker skip its commit or test result.
 */
export const REQUIRED_COMPLETION_FIELDS = [
  "run_id",
  "branch",
  "commit_sha",
  "files_changed",
  "test_result",
  "risk",
] as const satisfies readonly CompletionField[];

const requiredFieldsSchema = z
  .array(
    z.enum(COMPLETION_FIELDS, fieldRule(`must be a completion field: ${COMPLETION_FIELDS.join(", ")}`)),
    fieldRule("must be an array of completion field names"),
  )
  .min(1, "must name at least one completion field")
  .superRefine((fields, ctx) => {
    const named = new Set<string>(fields);
    const missing: string[] = REQUIRED_COMPLETION_FIELDS.filter((f) => !named.has(f));
    if (!named.has("pr_url") && !named.has("pr_skipped_reason"))
      missing.push("pr_url (or pr_skipped_reason)");
    if (missing.length > 0 && fields.length > 0)
      ctx.addIssue({
        code: "custom",
        message: `must contain every completion field of seed 001; missing ${missing.join(", ")}`,
        input: fields,
      });
  });

const outputContractSchema = z.looseObject(
  { required_fields: requiredFieldsSchema },
  fieldRule("must be an object with required_fields"),
);

/**
 * A worker dispatch (seed 001 "Dispatch Requirements": "Worker dispatch must be a JSON object (plain text is
 * rejected)"), field by field as the seed's "Field Rules" table says. Keys the table does not name are kept:
 * the seed's own example carries `priority`, which the table never mentions, so it is typed only as the string
 * the example shows.
 */
export const dispatchSchema = z.looseObject(
  {
    run_id: runIdSchema,
    task_type: z.enum(TASK_TYPES, fieldRule(`must be one of ${TASK_TYPES.join(", ")}`)),
    input: commandText("string"),
    repo: z.string(fieldRule("must be a string")).regex(OWNER_REPO, "must match owner/repo"),
    branch: jarvisBranchSchema,
    // Seed 001: "required non-empty string array".
    acceptance_tests: z
      .array(commandText("test command"), fieldRule("must be an array of test commands"))
      .min(1, "must list at least one test command"),
    output_contract: outputContractSchema,
    priority: z.string({ error: "must be a string" }).optional(),
  },
  { error: (issue) => (issue.code === "invalid_type" ? NOT_AN_OBJECT : undefined) },
);

export type Dispatch = z.output<typeof dispatchSchema>;
export type DispatchInput = z.input<typeof dispatchSchema>;

export const dispatchContract = defineContract({
  kind: "dispatch",
  seed: "001",
  title: "Worker dispatch",
  description:
    "The JSON object a `jarvis-worker-*` receives: run id, task type, input, repo, jarvis-<feature> branch, " +
    "acceptance tests and the completion fields its output must carry.",
  format: "json",
  schema: dispatchSchema,
});
