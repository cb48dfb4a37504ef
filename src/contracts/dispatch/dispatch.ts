import { z } from "zod";
import { fieldRule } from "../common.js";
import { defineContract } from "../registry.js";
import { COMPLETION_FIELDS, jarvisBranchSchema, runIdSchema } from "./run-fields.js";

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

/** The seed's example uses `high` and names no list; these are the levels the dispatching side emits. */
export const DISPATCH_PRIORITIES = ["low", "normal", "high"] as const;

/**
 * A GitHub owner (letters, digits and single inner hyphens, at most 39) and repository name (letters, digits,
 * `.`, `_`, `-`, at most 100, not `.` or `..`) joined by exactly one slash.
 */
const OWNER_REPO = /^(?=[^/]{1,39}\/)[A-Za-z0-9](?:-?[A-Za-z0-9])*\/(?!\.\.?$)[A-Za-z0-9._-]{1,100}$/;

const NOT_AN_OBJECT = "dispatch must be a JSON object (plain text is rejected)";

const commandText = (what: string) =>
  z.string(fieldRule("must be a string")).regex(/\S/, `must be a non-empty ${what} (not only whitespace)`);

const outputContractSchema = z.strictObject(
  {
    required_fields: z
      .array(
        z.enum(COMPLETION_FIELDS, fieldRule(`must be a completion field: ${COMPLETION_FIELDS.join(", ")}`)),
        fieldRule("must be an array of completion field names"),
      )
      .min(1, "must name at least one completion field"),
  },
  fieldRule("must be an object with required_fields"),
);

/**
 * A worker dispatch (seed 001). Strict: the dispatcher and the worker are both ours, so an unknown key is a
 * typo (`acceptance_test`) or a field the worker would silently ignore, and either way worth rejecting.
 */
export const dispatchSchema = z.strictObject(
  {
    run_id: runIdSchema,
    task_type: z.enum(TASK_TYPES, fieldRule(`must be one of ${TASK_TYPES.join(", ")}`)),
    input: commandText("string"),
    repo: z.string(fieldRule("must be a string")).regex(OWNER_REPO, "must match owner/repo"),
    branch: jarvisBranchSchema,
    acceptance_tests: z
      .array(commandText("test command"), fieldRule("must be an array of test commands"))
      .min(1, "must list at least one test command"),
    output_contract: outputContractSchema,
    priority: z
      .enum(DISPATCH_PRIORITIES, { error: `must be one of ${DISPATCH_PRIORITIES.join(", ")}` })
      .optional(),
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
