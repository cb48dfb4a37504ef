import type { PipelineFiles } from "./pipeline-files.js";
import type { ReviewQueue, ReviewStatus } from "./review-queue.js";

export type WorkflowStepKind = "evolve" | "review" | "promote" | "rollback";

/** One line of workflow_history.jsonl. */
export interface WorkflowStep {
  sequence: number;
  step: WorkflowStepKind;
  /** Operator steps: when they were taken. evolve: the latest feedback time it read (a run is a function of its input). */
  at: string | null;
  detail: Record<string, unknown>;
}

/** latest_workflow_state.json: where the workflow stands, and what to run next to resume it. */
export interface WorkflowState {
  report_kind: "workflow_state";
  last_step: WorkflowStep;
  review_counts: Record<ReviewStatus, number>;
  next_commands: string[];
}

function nextCommands(queue: ReviewQueue): string[] {
  const commands = ["ironclaw evolution governance --format md --write-report"];
  const has = (status: ReviewStatus) => queue.entries.some((e) => e.status === status);
  if (queue.entries.some((e) => e.status === "pending" && e.readiness !== "blocked"))
    commands.push("ironclaw evolution review approve|reject <proposal> --reason '<why>'");
  if (has("approved")) commands.push("ironclaw evolution promote --user <user> --dry-run");
  if (has("promoted")) commands.push("ironclaw evolution rollback <proposal> --user <user>");
  return commands;
}

/**
 * Appends a step to the history and rewrites the state file after it. An evolve step that repeats the last step
 * exactly (the same report from the same feedback) is not appended again, so re-running is idempotent.
 */
export function recordStep(
  files: PipelineFiles,
  step: Omit<WorkflowStep, "sequence">,
  queue: ReviewQueue,
): WorkflowStep {
  const { entries, end } = files.readHistory<WorkflowStep>();
  const last = entries[entries.length - 1];
  const repeated =
    last !== undefined &&
    step.step === "evolve" &&
    last.step === "evolve" &&
    last.detail.evolution_report_sha256 === step.detail.evolution_report_sha256;
  const recorded = repeated ? last : { sequence: entries.length + 1, ...step };
  if (!repeated) files.appendHistory(recorded, end);
  const review_counts: Record<ReviewStatus, number> = {
    pending: 0,
    approved: 0,
    rejected: 0,
    promoted: 0,
    rolled_back: 0,
  };
  for (const e of queue.entries) review_counts[e.status] += 1;
  const state: WorkflowState = {
    report_kind: "workflow_state",
    last_step: recorded,
    review_counts,
    next_commands: nextCommands(queue),
  };
  files.writeJson("workflowState", state);
  return recorded;
}
