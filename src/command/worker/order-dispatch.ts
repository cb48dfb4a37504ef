import {
  type Dispatch,
  dispatchSchema,
  type JobMessage,
  REQUIRED_COMPLETION_FIELDS,
  TASK_TYPES,
} from "../../contracts/index.js";
import { issuesFromZod, ValidationError } from "../../core/index.js";

/** What a job carries beside seed 000 §4's keys when the commanding officer made it (co/dispatch-run.ts). */
export interface JobExtras {
  type?: string;
  objective?: string;
  inputs?: Record<string, unknown>;
  acceptance_commands?: string[];
}

export function extrasOf(job: JobMessage): JobExtras {
  const { type, objective, inputs, acceptance_commands } = job as JobMessage & Record<string, unknown>;
  return {
    ...(typeof type === "string" ? { type } : {}),
    ...(typeof objective === "string" ? { objective } : {}),
    ...(inputs && typeof inputs === "object" && !Array.isArray(inputs)
      ? { inputs: inputs as Record<string, unknown> }
      : {}),
    ...(Array.isArray(acceptance_commands) && acceptance_commands.every((c) => typeof c === "string")
      ? { acceptance_commands: acceptance_commands as string[] }
      : {}),
  };
}

/** Said instead of a command when an order names none: seed 001 wants at least one acceptance test. */
const NO_COMMANDS = "no acceptance command was given: the objective in task.md is the measure";

/**
 * The seed-001 dispatch of one attempt. Its run_id is the order's id: seed 001's run is one worker run of one
 * order, retried under the same id (retry_count counts the retries), while seed 000's run_id names the whole
 * objective. The branch is the order's worktree branch under seed 001's `jarvis-` prefix; the repository is the
 * theater's. Validated here, so a job that cannot make a valid dispatch fails with the field named.
 */
export function dispatchFor(job: JobMessage, retryCount: number): Dispatch & { retry_count: number } {
  const extras = extrasOf(job);
  const type = extras.type ?? "";
  const candidate = {
    run_id: job.order_id,
    task_type: (TASK_TYPES as readonly string[]).includes(type) ? type : "code",
    input: extras.objective ?? `Carry out order ${job.order_id} as task.md describes.`,
    repo: `ironclaw/${job.theater_id}`,
    branch: `jarvis-order_${job.order_id}`,
    acceptance_tests: extras.acceptance_commands?.length ? extras.acceptance_commands : [NO_COMMANDS],
    output_contract: { required_fields: [...REQUIRED_COMPLETION_FIELDS, "pr_url"] },
    retry_count: retryCount,
  };
  const parsed = dispatchSchema.safeParse(candidate);
  if (!parsed.success)
    throw new ValidationError(`dispatch of order ${job.order_id}`, issuesFromZod(parsed.error));
  return { ...parsed.data, retry_count: retryCount };
}

/**
 * The one message the order's agent gets: the order, the task, the dispatch, and how to finish. The agent
 * cannot run git (its cell has no `.git`), so it reports the commit its work starts from; the host commits
 * what it wrote after the turn and records that commit in the AAR.
 */
export function orderPrompt(input: {
  dispatch: Dispatch;
  orderJson: string;
  taskMd: string;
  baseCommit: string;
}): string {
  const { dispatch } = input;
  return [
    "You are carrying out one order. Its files are in the folder work/ of your brain: read and change them",
    "there with your file tool (paths like work/src/index.ts). Only what is under work/ is kept; links are not.",
    "",
    "## order.json",
    "",
    "```json",
    input.orderJson.trim(),
    "```",
    "",
    "## task.md",
    "",
    input.taskMd.trim(),
    "",
    "## Dispatch",
    "",
    "```json",
    JSON.stringify(dispatch, null, 2),
    "```",
    "",
    "## How to finish",
    "",
    "End your final answer with exactly one completion block holding a JSON object:",
    "",
    "<completion>",
    JSON.stringify(
      {
        run_id: dispatch.run_id,
        branch: dispatch.branch,
        commit_sha: input.baseCommit,
        files_changed: ["work-relative paths you changed, e.g. src/index.ts"],
        test_result: "what you checked and how it went",
        risk: "low, medium or high, with why",
        pr_skipped_reason: "no pull request: the host integrates the worktree",
      },
      null,
      2,
    ),
    "</completion>",
    "",
    `run_id must be "${dispatch.run_id}"; commit_sha is the commit your work starts from (${input.baseCommit}).`,
  ].join("\n");
}
