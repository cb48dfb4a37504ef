import type { CellHandle } from "../../cells/index.js";

/** Which order a command cell works for, and on whose account. */
export interface CommandCellSpec {
  /** The user who owns the run: the cell is theirs (their uid, cgroup and limits) and their budget pays. */
  userId: string;
  runId: string;
  orderId: string;
  /** `order`: the worker's agent; `gate`: acceptance commands and gates run by integration. */
  purpose: "order" | "gate";
  /** The model the order's profile names; the host's default for new brains when absent. */
  model?: string;
}

/**
 * Cells for command's work (ARCHITECTURE.md "Command"): each is a cell of the order's user, started on a scratch
 * brain of its own (never the user's brain), with the agent handler, no network and the model reached only
 * through the warden's proxy under the user's spend caps, each call recorded against the run and the order.
 * Where the backend can attach a host directory to a running cell (a handle with attachWork: bwrap under a root
 * warden), the order's worktree is bound at the cell's `work/` with its `.git` masked and checked on the host once
 * the cell is gone (attached-tree.ts); elsewhere (a microVM) the tree goes in and out through the protocol
 * (tree-transfer.ts). Either way the cell never sees `.git`.
 */
export interface CommandCells {
  /** Starts and greets a cell for the spec; throws (naming the reason) when it cannot start. */
  start(spec: CommandCellSpec): Promise<CellHandle>;
  /** Stops a cell `start` returned and removes its scratch brain. Safe to call twice. */
  release(cell: CellHandle): Promise<void>;
  /**
   * The host's refusal of one of this cell's model calls on the user's spend caps (the refusal's message, naming
   * the cap, spent and limit), if there was one; asked before `release`. The host's own record, not the agent's
   * word: an agent cannot stop its run by claiming a cap was reached. Hosts without caps leave it out.
   */
  spendRefusal?(cell: CellHandle): string | undefined;
}
