import type { CellHandle } from "../../cells/index.js";
import {
  type CommandCellSpec,
  type CommandCells,
  copyTreeIn,
  copyTreeOut,
  type TransferReport,
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
