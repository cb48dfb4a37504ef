import { type Issue, issuesFromZod } from "../../core/index.js";
import { isJsonObject } from "../common.js";
import { type CompletionFields, completionFieldsSchema, missingCompletionFields } from "./completion.js";
import { decodeCompletionText } from "./completion-block.js";
import type { Dispatch } from "./dispatch.js";

/** A completion that passed every gate: its run id is the dispatch's, every required field is present. */
export type GatedCompletion = CompletionFields & { run_id: string };

export type CompletionVerdict =
  | { status: "review_requested"; completion: GatedCompletion }
  | { status: "failed_contract"; issues: Issue[] };

/**
 * Seed 001's validation gates, run over a worker's full output: (1) exactly one `<completion>` block holding a
 * JSON object, (2) every field of `output_contract.required_fields` present and well-formed (`pr_skipped_reason`
 * stands in for `pr_url`), (3) its `run_id` equal to the dispatch's. Passing all moves the run to
 * `review_requested`; anything else to `failed_contract`, with every problem found rather than the first.
 */
export function evaluateCompletion(
  dispatch: Pick<Dispatch, "run_id" | "output_contract">,
  workerOutput: string,
): CompletionVerdict {
  const decoded = decodeCompletionText(workerOutput);
  if ("issues" in decoded) return { status: "failed_contract", issues: decoded.issues };

  const parsed = completionFieldsSchema.safeParse(decoded.value);
  const issues = parsed.success ? [] : issuesFromZod(parsed.error);
  if (!isJsonObject(decoded.value)) return { status: "failed_contract", issues };

  issues.push(...missingCompletionFields(decoded.value, dispatch.output_contract.required_fields));

  const runId = decoded.value.run_id;
  if (runId !== dispatch.run_id && !issues.some((i) => i.path === "$.run_id")) {
    const got = typeof runId === "string" ? `, not "${runId}"` : "";
    issues.push({
      path: "$.run_id",
      code: "run_id_mismatch",
      message: `must equal the dispatch run_id "${dispatch.run_id}"${got}`,
    });
  }

  if (issues.length > 0 || !parsed.success) return { status: "failed_contract", issues };
  return { status: "review_requested", completion: { ...parsed.data, run_id: dispatch.run_id } };
}
