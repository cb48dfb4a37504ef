import { z } from "zod";
import type { CellHandle } from "../../cells/index.js";
import type { TransferLimits } from "../cells/index.js";
import { RECORDS_ROOT } from "./order-records.js";

/** One gate command's outcome, as the gate cell's handler answers it. */
export const gateCommandResultSchema = z.looseObject({
  command: z.string(),
  exit: z.number().int().nullable(),
  stdout_tail: z.string(),
  stderr_tail: z.string(),
  timed_out: z.boolean(),
});
export type GateCommandResult = z.output<typeof gateCommandResultSchema>;

const gateReplySchema = z.looseObject({ results: z.array(gateCommandResultSchema) });

/**
 * What to gate: the merged tree on the host (its `.git` is never copied or shown to the cell) and the commands to
 * run over it. The tree is a scratch checkout the gate may write, removed after it and never read as trusted.
 */
export interface GateRequest {
  userId: string;
  runId: string;
  orderId: string;
  /** The merged tree, a directory on the host. */
  treeDir: string;
  commands: string[];
  /** Limit of each command. */
  commandTimeoutMs: number;
}

/** Runs gate commands over a tree somewhere the tree's code cannot reach the host; stops at the first failure. */
export interface GateRunner {
  run(request: GateRequest): Promise<GateOutcome>;
}

/** What a gate run answers: each command's outcome, and the tree's paths the gate did not get (links, caps). */
export interface GateOutcome {
  results: GateCommandResult[];
  skipped: ReadonlyArray<{ path: string; reason: string }>;
  /**
   * Resolves once the gate's cell has exited (never rejects): the tree it had must not be removed before, and
   * the caller need not wait for it to use the results. Absent: nothing is left running.
   */
  released?: Promise<void>;
}

/** The cell a gate runs in: one of the order's user's command cells. */
export interface GateCellSpec {
  userId: string;
  runId: string;
  orderId: string;
  purpose: "gate";
}

/** The cells a gate runs in (command's cells) and the way a tree goes into one (copyTreeIn). */
export interface GateCellsOptions {
  cells: {
    start(spec: GateCellSpec): Promise<CellHandle>;
    release(cell: CellHandle): Promise<void>;
  };
  /**
   * Copies a host directory (without `.git`, links as data) into the cell's brain at `brainDir`, leaving out the
   * names of `leaveOut` at its root; default limits when `limits` is undefined.
   */
  copyTreeIn(
    cell: CellHandle,
    hostDir: string,
    brainDir: string,
    limits: TransferLimits | undefined,
    leaveOut: readonly string[],
  ): Promise<{ skipped: ReadonlyArray<{ path: string; reason: string }> }>;
}

/** Where the tree goes in the gate cell's brain; the gate handler's default working directory. */
export const GATE_DIR = "work";

/**
 * Gates in a cell (ARCHITECTURE.md "Command": acceptance commands and gates run in a cell): the order's code
 * is untrusted, so a test that reads the host's files or calls out finds neither there. One cell per gate run,
 * released whatever happens: after a failure before the run returns, after an answer alongside what follows.
 */
export class CellGateRunner implements GateRunner {
  constructor(private readonly options: GateCellsOptions) {}

  async run(request: GateRequest): Promise<GateOutcome> {
    if (request.commands.length === 0) return { results: [], skipped: [] };
    const { cells, copyTreeIn } = this.options;
    const cell = await cells.start({
      userId: request.userId,
      runId: request.runId,
      orderId: request.orderId,
      purpose: "gate",
    });
    try {
      // Attached where the backend can: the scratch checkout is thrown away after the gate, so what the gate's
      // commands write there is nobody's; its .git is masked like an order's. Elsewhere, copied in.
      const { skipped } = cell.attachWork
        ? await cell.attachWork(request.treeDir).then(() => ({ skipped: [] }))
        : await copyTreeIn(cell, request.treeDir, GATE_DIR, undefined, leftOut(request));
      const text = JSON.stringify({
        commands: request.commands,
        dir: GATE_DIR,
        timeout_ms: request.commandTimeoutMs,
      });
      // Each command may take its whole limit; the call gets them all plus room for the cell to answer.
      const timeoutMs = request.commands.length * (request.commandTimeoutMs + 5_000) + 30_000;
      const reply = await cell.call({ type: "UserMessage", text }, { timeoutMs });
      if (reply.type !== "TurnComplete")
        throw new Error(`the gate cell answered ${reply.type}, not TurnComplete`);
      const parsed = gateReplySchema.safeParse(safeJson(reply.text));
      if (!parsed.success)
        throw new Error(`the gate cell's answer is not a gate result: ${reply.text.slice(0, 200)}`);
      // Stopping the cell is left to go on while integration merges: the answer is in, and it is all the host reads.
      const released = cells.release(cell).catch(() => undefined);
      return { results: parsed.data.results, skipped, released };
    } catch (error) {
      await cells.release(cell);
      throw error;
    }
  }
}

/**
 * What of the merged tree the gate does without: the records every merged order left under `.ironclaw/` grow with
 * every merge (six files an order) and no gate reads them unless one of its commands names them.
 */
function leftOut(request: GateRequest): string[] {
  return request.commands.some((command) => command.includes(RECORDS_ROOT)) ? [] : [RECORDS_ROOT];
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
