import type { AarArtifact, AarFile, CompletionVerdict, LedgerEventInput } from "../../contracts/index.js";
import { aarFileSchema } from "../../contracts/index.js";
import { type Issue, nowIso } from "../../core/index.js";
import { writeHostFile } from "../cells/index.js";
import type { OrderTurn } from "./order-turn.js";

/** The ids every event of one order's attempt carries (seed 000 §1 base fields). */
export interface EventBase {
  garrison_id: string;
  theater_id: string;
  run_id: string;
  order_id: string;
  unit_id: string;
}

/** How one attempt ended: seed 001's worker-run statuses this worker can reach. */
export type AttemptStatus = "review_requested" | "failed_contract" | "failed";

export interface AttemptOutcome {
  status: AttemptStatus;
  /** The gates' issues (failed_contract) or the turn's failure (failed). */
  issues: Issue[];
}

/** The issue code of an attempt a spend cap stopped (spend-stop.ts reads it). */
export const SPEND_CAP = "spend_cap";

/**
 * The gate's verdict over the agent's text, or `failed` when the turn itself did not complete or the host refused
 * one of its model calls on a spend cap.
 */
export function outcomeOf(turn: OrderTurn, verdict: CompletionVerdict): AttemptOutcome {
  // Whatever the agent made of a refused call (an error, or a completion it wrote anyway), the attempt failed.
  if (turn.spendRefusal !== undefined)
    return { status: "failed", issues: [{ path: "$", code: SPEND_CAP, message: turn.spendRefusal }] };
  if (turn.failure)
    return { status: "failed", issues: [{ path: "$", code: "turn_failed", message: turn.failure }] };
  if (verdict.status === "failed_contract") return { status: "failed_contract", issues: verdict.issues };
  return { status: "review_requested", issues: [] };
}

/** The failure reason an ORDER_FAILED carries: the status first (the next attempt's retry rule reads it). */
export function failureReason(outcome: AttemptOutcome): string {
  const detail = outcome.issues.map((i) => `${i.path} ${i.message}`).join("; ");
  return `${outcome.status}: ${detail || "no detail"}`.slice(0, 2000);
}

/**
 * Writes outputs/model_output.txt (the agent's final text), outputs/completion.json (the gated completion, when
 * it passed) and aar.json into the worktree, through no link; returns the artifacts and the AAR written.
 */
export async function writeAttemptFiles(input: {
  worktree: string;
  orderId: string;
  turn: OrderTurn;
  verdict: CompletionVerdict;
  outcome: AttemptOutcome;
  model: { provider: string; name: string };
}): Promise<{ artifacts: AarArtifact[]; aar: AarFile }> {
  const { worktree, turn, verdict, outcome } = input;
  const artifacts: AarArtifact[] = [{ path: "outputs/model_output.txt", type: "text/plain" }];
  await writeHostFile(worktree, "outputs/model_output.txt", Buffer.from(turn.text || "(no text)\n"));
  if (verdict.status === "review_requested") {
    const json = `${JSON.stringify(verdict.completion, null, 2)}\n`;
    await writeHostFile(worktree, "outputs/completion.json", Buffer.from(json));
    artifacts.push({ path: "outputs/completion.json", type: "application/json" });
  }
  const aar = aarFileSchema.parse({
    order_id: input.orderId,
    status: outcome.status === "review_requested" ? "completed" : "failed",
    completed_at: nowIso(),
    summary: summaryOf(turn, outcome),
    artifacts,
    model: input.model,
    notes: notesOf(turn, outcome),
    next_recommendations: [],
  });
  await writeHostFile(worktree, "aar.json", Buffer.from(`${JSON.stringify(aar, null, 2)}\n`));
  return { artifacts, aar };
}

function summaryOf(turn: OrderTurn, outcome: AttemptOutcome): string {
  const said = turn.text
    .replace(/<completion>[\s\S]*?<\/completion>/g, "")
    .trim()
    .split("\n")[0]
    ?.slice(0, 300);
  const verdict =
    outcome.status === "review_requested"
      ? "The completion passed seed 001's gates; review requested."
      : outcome.status === "failed_contract"
        ? `The completion failed seed 001's gates (${outcome.issues.length} issue(s)).`
        : "The agent's turn did not complete.";
  return said ? `${verdict} ${said}` : verdict;
}

/** Every path the transfer skipped and every issue, so that a reader of the AAR sees what was left out. */
function notesOf(turn: OrderTurn, outcome: AttemptOutcome): string[] {
  return [
    ...turn.into.skipped.map((s) => `not copied into the cell: ${s.path} (${s.reason})`),
    ...(turn.out?.skipped ?? []).map((s) => `not copied back from the cell: ${s.path} (${s.reason})`),
    ...(turn.out?.removed ?? []).map((p) => `removed by the agent: ${p}`),
    ...outcome.issues.map((i) => `${outcome.status}: ${i.path} ${i.message}`),
  ];
}

/** The ledger events that close an attempt (seed 000 §3.5 step 6), in order: artifacts, AAR, outcome. */
export function closingEvents(
  base: EventBase,
  artifacts: readonly AarArtifact[],
  outcome: AttemptOutcome,
  commitSha: string,
  /** The AAR's summary, carried on AAR_WRITTEN so a reader of the ledger sees it without the worktree. */
  summary?: string,
): LedgerEventInput[] {
  return [
    ...artifacts.map((a) => ({ ...base, type: "ARTIFACT_WRITTEN" as const, payload: { ...a } })),
    {
      ...base,
      type: "AAR_WRITTEN",
      payload: { path: "aar.json", commit_sha: commitSha, ...(summary ? { summary } : {}) },
    },
    outcome.status === "review_requested"
      ? {
          ...base,
          type: "ORDER_COMPLETED",
          payload: { commit_sha: commitSha, worker_status: outcome.status },
        }
      : {
          ...base,
          type: "ORDER_FAILED",
          payload: { reason: failureReason(outcome), worker_status: outcome.status },
        },
  ];
}
