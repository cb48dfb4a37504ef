import type { CellHandle } from "../../cells/index.js";
import {
  type CommandCellSpec,
  type CommandCells,
  copyTreeIn,
  copyTreeOut,
  scratchCopyOf,
  type TransferReport,
  takeBackAttachedTree,
} from "../cells/index.js";

export interface OrderTurn {
  /** The agent's final text (TurnComplete), or what it said before the turn failed. */
  text: string;
  /** Why the turn did not complete (an Error frame, a timeout, a cell that died); undefined when it did. */
  failure?: string;
  into: TransferReport;
  /** Undefined when the turn failed before anything was copied back. */
  out?: TransferReport;
  /** The host refused a model call of the turn on the user's spend caps: its message (the cap, spent, limit). */
  spendRefusal?: string;
}

/** Nothing went in through the protocol: the cell had a local copy of the worktree attached. */
const NOTHING_COPIED: TransferReport = { files: [], bytes: 0, skipped: [], removed: [] };

/** How many of the refusals of a cell's changes the failure names; the rest are counted. */
const REFUSALS_NAMED = 5;

/**
 * One order's turn in a command cell: the worktree goes in under `work/`, the agent gets one message and works
 * until its turn completes (or the time runs out, or `signal` says the job was lost), then the tree comes back
 * out into the worktree if the attempt may still write it. The cell is released whatever happens.
 */
export async function runOrderTurn(input: {
  cells: CommandCells;
  spec: CommandCellSpec;
  worktree: string;
  prompt: string;
  timeoutMs: number;
  signal: AbortSignal;
  /** Asked just before the cell's tree is copied back: false keeps it out of the worktree (a stale attempt). */
  mayWriteBack?: () => Promise<boolean>;
  /** The order's fs_allowlist; undefined: the whole worktree. */
  allow?: ((path: string) => boolean) | undefined;
}): Promise<OrderTurn> {
  const cell = await input.cells.start(input.spec);
  if (cell.attachWork) return attachedTurn(input, cell);
  const stopOnAbort = () => void input.cells.release(cell);
  input.signal.addEventListener("abort", stopOnAbort, { once: true });
  try {
    const into = await copyTreeIn(cell, input.worktree);
    const { text, failure } = await converse(cell, input.prompt, input.timeoutMs);
    const refusal = input.cells.spendRefusal?.(cell);
    const spend = refusal === undefined ? {} : { spendRefusal: refusal };
    if (input.signal.aborted) return { text, failure: "the job's lease was lost", into, ...spend };
    if (input.mayWriteBack && !(await input.mayWriteBack()))
      return { text, failure: "the attempt was superseded", into, ...spend };
    const out = await copyTreeOut(cell, "work", input.worktree, {
      removeMissing: into.files,
      ...(input.allow ? { allow: input.allow } : {}),
    });
    return { text, ...(failure ? { failure } : {}), into, out, ...spend };
  } finally {
    input.signal.removeEventListener("abort", stopOnAbort);
    await input.cells.release(cell);
  }
}

/**
 * The turn where the cell's backend can attach a host folder at `work/` (bwrap under a root warden): a local
 * scratch copy of the worktree (no `.git`) is attached instead of sent through the protocol. The host reads the
 * copy only once the cell has exited, and takes its changes into the worktree only if every one passes the checks
 * the copy back out would make (takeBackAttachedTree); otherwise the worktree stays as it was and the attempt
 * fails naming each refusal. A lost or superseded attempt takes nothing back.
 */
async function attachedTurn(input: Parameters<typeof runOrderTurn>[0], cell: CellHandle): Promise<OrderTurn> {
  const stopOnAbort = () => void input.cells.release(cell);
  input.signal.addEventListener("abort", stopOnAbort, { once: true });
  let scratch: Awaited<ReturnType<typeof scratchCopyOf>> | undefined;
  let copiedBefore: bigint | undefined;
  try {
    let turn: { text: string; failure?: string };
    let refusal: string | undefined;
    try {
      scratch = await scratchCopyOf(input.worktree);
      await cell.attachWork?.(scratch.tree);
      // After the attach (its chown moves every ctime) and before the turn: what the cell changes is newer.
      copiedBefore = await scratch.handedOver();
      turn = await converse(cell, input.prompt, input.timeoutMs);
      refusal = input.cells.spendRefusal?.(cell);
    } catch (error) {
      const failure = `the worktree could not be attached to the cell: ${(error as Error).message}`;
      return { text: "", failure, into: NOTHING_COPIED };
    } finally {
      input.signal.removeEventListener("abort", stopOnAbort);
      // Gone before the host reads what it wrote.
      await input.cells.release(cell);
    }
    const spend = refusal === undefined ? {} : { spendRefusal: refusal };
    const { text } = turn;
    if (input.signal.aborted)
      return { text, failure: "the job's lease was lost", into: NOTHING_COPIED, ...spend };
    if (input.mayWriteBack && !(await input.mayWriteBack()))
      return { text, failure: "the attempt was superseded", into: NOTHING_COPIED, ...spend };
    const back = await takeBackAttachedTree(scratch.tree, input.worktree, {
      allow: input.allow,
      copiedBefore,
    });
    if (back.refusals.length > 0) {
      const named = back.refusals.slice(0, REFUSALS_NAMED).join("; ");
      const more = back.refusals.length - REFUSALS_NAMED;
      const failure = `the cell's changes to the worktree were refused, none kept: ${named}${more > 0 ? `; and ${more} more` : ""}`;
      return { text, failure, into: NOTHING_COPIED, ...spend };
    }
    const failure = turn.failure ? { failure: turn.failure } : {};
    return { text, ...failure, into: NOTHING_COPIED, out: back.report, ...spend };
  } finally {
    await scratch?.remove();
  }
}

async function converse(cell: CellHandle, prompt: string, timeoutMs: number) {
  let text = "";
  try {
    for await (const reply of cell.request({ type: "UserMessage", text: prompt }, { timeoutMs })) {
      if (reply.type === "StreamDelta") text += reply.delta;
      else if (reply.type === "TurnComplete") return { text: reply.text };
      else if (reply.type === "Error") return { text, failure: `the agent's turn failed: ${reply.message}` };
    }
    return { text, failure: "the agent's turn ended without completing" };
  } catch (error) {
    return { text, failure: `the agent's turn failed: ${(error as Error).message}` };
  }
}
