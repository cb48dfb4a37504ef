import { chmod, mkdir, mkdtemp, rm } from "node:fs/promises";
import { join } from "node:path";
import { type CellBackend, type CellHandle, describeCellExit, userCellSpec } from "../cells/index.js";
import type { CommandCellSpec, CommandCells } from "../command/index.js";
import type { IronclawdConfig } from "../contracts/index.js";
import type { Logger } from "../core/index.js";
import type { ModelBudget } from "./budget/index.js";
import { type AuditEntry, type ModelCallRecord, serveCellRequests } from "./cell-requests.js";
import type { HostProviders } from "./host-providers.js";

export interface WardenCommandCellsOptions {
  backend: CellBackend;
  /** Where scratch brains live while their cell runs, e.g. IRONCLAW_HOME/command/cells. */
  scratchDir: string;
  config: Pick<IronclawdConfig, "egress" | "new_brains">;
  providers: HostProviders;
  /** The host uid of a user's cells: a command cell is the user's, with their uid, cgroup and limits. */
  cellUidOf: (userId: string) => number | undefined;
  audit: (entry: AuditEntry) => void;
  logger: Logger;
  /** The user's spend caps: a command cell's calls are charged to its user like their own cell's. */
  budget?: ModelBudget;
  onModelCall?: (record: ModelCallRecord) => void;
  /** How long a start may take before the cell's Ready (a microVM under TCG is slow). */
  readyTimeoutMs?: number;
}

interface Running {
  dir: string;
  detach: () => void;
  /** The first of its model calls the user's spend caps refused: the message naming the cap. */
  spendRefusal?: string;
}

/**
 * The warden's command cells: a cell of the order's user on a scratch brain of its own (never the user's brain,
 * which their own cell may be using), started through the host's backend with the user's uid, served by the
 * same model proxy as the user's cell, with the user's budget, every call recorded against the run and order.
 */
export class WardenCommandCells implements CommandCells {
  private readonly running = new Map<CellHandle, Running>();

  constructor(private readonly options: WardenCommandCellsOptions) {}

  async start(spec: CommandCellSpec): Promise<CellHandle> {
    const { backend, config } = this.options;
    // A folder of its own per start, never per order: two attempts of one order can run at once (a reissued
    // order's next attempt while the one it replaced is still being stopped), and the one stopped last must not
    // delete, nor the one started last empty, the brain the other is working in.
    await mkdir(this.options.scratchDir, { recursive: true, mode: 0o755 });
    const dir = await mkdtemp(join(this.options.scratchDir, `${spec.purpose}-${spec.orderId}-`));
    await chmod(dir, 0o755);
    const { provider, model, embedding_provider, embedding_model } = config.new_brains;
    const chosenModel = spec.model ?? model;
    let cell: CellHandle;
    try {
      cell = await backend.start({
        userId: spec.userId,
        userDir: dir,
        // An order's cell runs the agent as a stateless worker; a gate's runs the acceptance commands it is
        // sent, and no model.
        handler: spec.purpose === "gate" ? "gate" : "order",
        // Where the backend can, the order's worktree (or the gate's merged tree) is attached, not copied.
        workSlot: true,
        brainSeed: {
          ...(provider ? { provider } : {}),
          ...(chosenModel ? { model: chosenModel } : {}),
          ...(embedding_provider && embedding_model
            ? { embedding: { provider: embedding_provider, model: embedding_model } }
            : {}),
        },
        ...userCellSpec(spec.userId, this.options.cellUidOf(spec.userId), backend),
      });
    } catch (error) {
      await rm(dir, { recursive: true, force: true });
      throw error;
    }
    const running: Running = { dir, detach: () => {} };
    running.detach = serveCellRequests(cell, {
      userId: spec.userId,
      providers: this.options.providers,
      egress: config.egress,
      // The proxy audits every refusal; a budget's is kept for the worker, which stops the run on it.
      audit: (entry) => {
        if (entry.action === "budget.refused" && running.spendRefusal === undefined)
          running.spendRefusal = String(entry.detail.reason);
        this.options.audit(entry);
      },
      logger: this.options.logger.child({ user: spec.userId, run: spec.runId, order: spec.orderId }),
      labels: { session: `run:${spec.runId}`, job: `order:${spec.orderId}` },
      ...(this.options.budget ? { budget: this.options.budget } : {}),
      ...(this.options.onModelCall ? { onModelCall: this.options.onModelCall } : {}),
    });
    this.running.set(cell, running);
    try {
      await this.greet(cell);
    } catch (error) {
      await this.release(cell);
      throw error;
    }
    return cell;
  }

  async release(cell: CellHandle): Promise<void> {
    const running = this.running.get(cell);
    if (!running) return;
    this.running.delete(cell);
    // Nothing a command cell holds is kept (its folder goes next): killed at once, not given a shutdown's grace.
    await cell.stop({ reason: "order finished", discard: true }).catch(() => undefined);
    running.detach();
    await rm(running.dir, { recursive: true, force: true });
  }

  spendRefusal(cell: CellHandle): string | undefined {
    return this.running.get(cell)?.spendRefusal;
  }

  /** Stops every command cell still running (the warden shutting down). */
  async releaseAll(): Promise<void> {
    await Promise.all([...this.running.keys()].map((cell) => this.release(cell)));
  }

  private async greet(cell: CellHandle): Promise<void> {
    const reply = await cell
      .call(
        { type: "Hello", providers: this.options.providers.names() },
        { timeoutMs: this.options.readyTimeoutMs ?? 120_000 },
      )
      .catch(async (error: Error) => {
        const exit = await Promise.race([cell.exited, delay(3_000)]);
        throw new Error(
          exit
            ? `the command cell stopped before it was ready: ${describeCellExit(exit)}`
            : `the command cell did not get ready: ${error.message}`,
        );
      });
    if (reply.type !== "Ready")
      throw new Error(
        `the command cell could not start its agent: ${reply.type === "Error" ? reply.message : reply.type}`,
      );
  }
}

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms).unref());
}
