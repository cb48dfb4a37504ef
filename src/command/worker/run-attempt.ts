import { join } from "node:path";
import { evaluateCompletion, type JobMessage, type LedgerEventInput } from "../../contracts/index.js";
import { type CommandCells, readHostFile } from "../cells/index.js";
import {
  type AttemptOutcome,
  closingEvents,
  type EventBase,
  outcomeOf,
  writeAttemptFiles,
} from "./attempt-report.js";
import { fsAllowlistOf } from "./fs-allowlist.js";
import { dispatchFor, orderPrompt } from "./order-dispatch.js";
import { type OrderTurn, runOrderTurn } from "./order-turn.js";
import type { WorkerVault } from "./worker-vault.js";

export interface AttemptRun {
  outcome: AttemptOutcome;
  /** The closing events (artifacts, AAR, outcome); empty when the attempt failed before writing its AAR. */
  events: LedgerEventInput[];
}

const ORDER_FILE_BYTES = 256 * 1024;

/**
 * One attempt of an order, from the worktree to the events that close it: build and check the dispatch, run
 * the agent's turn in a command cell, gate its completion, write outputs and aar.json, commit. Nothing here
 * appends to the ledger: the worker appends the closing events in one batch.
 */
export async function runAttempt(input: {
  vault: WorkerVault;
  cells: CommandCells;
  ownerOf: (runId: string) => Promise<string | undefined>;
  modelProvider: string;
  job: JobMessage;
  base: EventBase;
  attempt: number;
  retryCount: number;
  /** Aborts when the job's lease is lost or the attempt is superseded: the cell stops, nothing is written back. */
  lost: AbortSignal;
  /** Whether the attempt is still the order's current one; asked before each write to the worktree. */
  current: () => Promise<boolean>;
}): Promise<AttemptRun> {
  const { job, vault } = input;
  const owner = await input.ownerOf(job.run_id);
  if (!owner) throw new Error(`run ${job.run_id} names no user, so there is nobody to run its order as`);
  const dispatch = dispatchFor(job, input.retryCount);
  const { path: worktree, prepared } = await vault.openWorktree(job);
  // A worktree prepared just now has nothing to commit: its preparing commit is where the attempt begins.
  const baseCommit =
    prepared ??
    (await vault.commitAll(job.order_id, `order ${job.order_id}: attempt ${input.attempt} begins`));
  const prompt = orderPrompt({
    dispatch,
    orderJson: (await readHostFile(join(worktree, "order.json"), ORDER_FILE_BYTES)).toString("utf8"),
    taskMd: (await readHostFile(join(worktree, "task.md"), ORDER_FILE_BYTES)).toString("utf8"),
    baseCommit,
  });
  const turn: OrderTurn = await runOrderTurn({
    cells: input.cells,
    spec: {
      userId: owner,
      runId: job.run_id,
      orderId: job.order_id,
      purpose: "order",
      model: job.profile.model,
    },
    worktree,
    prompt,
    timeoutMs: job.constraints.budget_seconds * 1000,
    signal: input.lost,
    mayWriteBack: input.current,
    allow: fsAllowlistOf(job),
  });
  const verdict = evaluateCompletion(dispatch, turn.text);
  const outcome = outcomeOf(turn, verdict);
  // A superseded attempt writes nothing more: the worktree and its branch belong to the attempt that replaced it.
  if (input.lost.aborted || !(await input.current())) return { outcome, events: [] };
  const { artifacts, aar } = await writeAttemptFiles({
    worktree,
    orderId: job.order_id,
    turn,
    verdict,
    outcome,
    model: { provider: input.modelProvider, name: job.profile.model },
  });
  const sha = await vault.commitAll(
    job.order_id,
    `order ${job.order_id}: attempt ${input.attempt} ${outcome.status}`,
  );
  return { outcome, events: closingEvents(input.base, artifacts, outcome, sha, aar.summary) };
}
