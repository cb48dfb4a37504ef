import { setTimeout as sleep } from "node:timers/promises";
import type { ChatAsyncData, ChatSyncData, SynthesizeData } from "../contracts/index.js";
import { ConflictError, type Logger } from "../core/index.js";
import type { EventStore } from "../ledger/index.js";
import type { CommandingOfficer } from "./co/commanding-officer.js";
import type { Integrator } from "./integration/integrate.js";
import { listRuns } from "./run-owners.js";

export interface ChatInput {
  userId: string;
  theaterId: string;
  message: string;
  mode: "sync" | "async";
}

/** How long a sync chat waits before answering like an async one (the run goes on either way). */
export const DEFAULT_CHAT_WAIT_MS = 10 * 60_000;

/** How often a waiting run re-checks without an append to wake it (another process's workers). */
const RECHECK_MS = 2_000;

/**
 * Carries runs from objective to reply (seed 000 §3.1, POST /chat): create, plan, dispatch, wait for the orders,
 * integrate each one completed, dispatch again as dependencies are integrated, synthesize. A followed run goes on whoever waits for it, until
 * it is concluded or the service closes. Planning that fails cancels the run with the reason, so no run waits
 * OPEN for orders that will never exist.
 */
export class RunDriver {
  private readonly stop = new AbortController();
  private readonly followed = new Map<string, Promise<SynthesizeData>>();

  constructor(
    private readonly co: CommandingOfficer,
    private readonly store: EventStore,
    /** Promotes each completed order; without one, orders wait for POST /integrate. */
    private readonly integrator?: Integrator,
    private readonly logger?: Logger,
  ) {}

  /** sync: the reply (or, past `waitMs`, the async answer); async: the run id at once. */
  async chat(input: ChatInput, options: { waitMs?: number } = {}): Promise<ChatSyncData | ChatAsyncData> {
    const runId = await this.co.createRun({
      userId: input.userId,
      theaterId: input.theaterId,
      objective: input.message,
    });
    const done = this.follow(runId);
    if (input.mode === "async") {
      done.catch(() => undefined); // its outcome is in the ledger; GET /runs/{id} shows it
      return { run_id: runId, status: "OPEN" };
    }
    const timer = new AbortController();
    const result = await Promise.race([
      done,
      sleep(options.waitMs ?? DEFAULT_CHAT_WAIT_MS, undefined, { signal: timer.signal }).catch(
        () => undefined,
      ),
    ]).finally(() => timer.abort());
    if (result === undefined) return { run_id: runId, status: "OPEN" };
    return { run_id: runId, reply: result.reply, artifacts: result.artifacts };
  }

  /** The run's conclusion, driving it there once however many callers ask. */
  follow(runId: string): Promise<SynthesizeData> {
    let driving = this.followed.get(runId);
    if (!driving) {
      driving = this.drive(runId).finally(() => this.followed.delete(runId));
      this.followed.set(runId, driving);
    }
    return driving;
  }

  /**
   * Follows every run the ledger holds OPEN (newest first, at most `limit`): a host that stopped mid-run carries its
   * runs on when it starts again, instead of leaving them OPEN until someone asks. Returns the runs taken up; their
   * outcomes go to the ledger (a conversation that asked is not known here and hears nothing).
   */
  async resumeOpen(limit = 1000): Promise<string[]> {
    const open = (await listRuns(this.store, { limit })).filter((run) => run.status === "OPEN");
    for (const { run_id } of open)
      this.follow(run_id).catch((error: Error) => {
        if (error.name !== "AbortError")
          this.logger?.warn({ err: error, run: run_id }, "a run taken up again at start did not finish");
      });
    return open.map((run) => run.run_id);
  }

  /** Stops waiting for every followed run; what they did so far stays in the ledger. */
  async close(): Promise<void> {
    this.stop.abort();
    await Promise.allSettled([...this.followed.values()]);
  }

  private async drive(runId: string): Promise<SynthesizeData> {
    const run = await this.store.getRun(runId);
    if (run?.status === "OPEN" && run.orders.length === 0) {
      try {
        await this.co.plan(runId);
      } catch (error) {
        // A plan cut short by this host stopping is not a failed plan: the run stays OPEN for the next start.
        this.stop.signal.throwIfAborted();
        const reason = `planning failed: ${(error as Error).message}`.slice(0, 1000);
        await this.co.cancel(runId, reason).catch(() => undefined);
        throw error;
      }
    }
    const { signal } = this.stop;
    for (;;) {
      signal.throwIfAborted();
      const head = await this.store.head();
      if ((await this.store.getRun(runId))?.status === "OPEN") {
        try {
          await this.integrateCompleted(runId);
          await this.co.dispatch(runId);
          return await this.co.synthesize(runId);
        } catch (error) {
          if (!(error instanceof ConflictError)) throw error; // orders still in progress: wait for the ledger
        }
      } else return this.concluded(runId);
      await this.store.waitForAppend(head, { timeoutMs: RECHECK_MS, signal });
    }
  }

  /**
   * The conclusion of a run that is no longer OPEN: its synthesis, or, for a cancelled run (which has none), why
   * it was cancelled — a spend cap that stopped it names the cap, spent and limit — with what it did integrate.
   */
  private async concluded(runId: string): Promise<SynthesizeData> {
    const view = await this.co.runStatus(runId);
    if (view.status !== "CANCELLED") return this.co.synthesize(runId);
    const [cancelled] = await this.store.read({ runId, types: ["RUN_CANCELLED"], limit: 1 });
    const reason = String(cancelled?.payload.reason ?? "no reason was recorded");
    const integrated = new Set(
      view.orders.filter((o) => o.integration_state === "INTEGRATED").map((o) => o.order_id),
    );
    return {
      run_id: runId,
      status: "CANCELLED",
      reply: `Run ${runId} was CANCELLED: ${reason}`,
      artifacts: view.artifacts.filter((a) => integrated.has(a.order_id)),
    };
  }

  /**
   * Integrates the run's completed orders. A failed gate or merge is recorded by integration itself; a refusal
   * (a dependency not integrated yet) is tried again on the run's next change, so neither ends the run here.
   */
  private async integrateCompleted(runId: string): Promise<void> {
    if (!this.integrator) return;
    const view = await this.co.runStatus(runId);
    for (const order of view.orders) {
      // READY is the observer's word that its AAR and artifacts check out: still to be integrated.
      if (order.status !== "COMPLETED" || (order.integration_state ?? "READY") !== "READY") continue;
      const snapshot = await this.store.getOrder(order.order_id);
      if (!snapshot?.worktree_path) continue;
      await this.integrator
        .integrate({
          theaterId: snapshot.theater_id,
          orderId: order.order_id,
          worktreePath: snapshot.worktree_path,
        })
        .catch((error: unknown) =>
          this.logger?.warn(
            { err: error, run: runId, order: order.order_id },
            "integrating a completed order failed",
          ),
        );
    }
  }
}
