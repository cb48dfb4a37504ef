import { type JobMessage, jobMessageSchema } from "../../contracts/index.js";
import { issuesFromZod, type Logger } from "../../core/index.js";
import { type EventStore, StreamVersionConflictError } from "../../ledger/index.js";
import type { CommandCells } from "../cells/index.js";
import type { ClaimedJob, JobQueue } from "../queue/job-queue.js";
import { closeAttempt, eventBaseOf, lastFailure, startAttempt } from "./attempt-ledger.js";
import { planAttempt } from "./attempt-plan.js";
import type { AttemptStatus, EventBase } from "./attempt-report.js";
import { keepLease } from "./lease-keeper.js";
import { type AttemptRun, runAttempt } from "./run-attempt.js";
import type { WorkerVault } from "./worker-vault.js";

export interface WorkerOptions {
  store: EventStore;
  queue: JobQueue;
  vault: WorkerVault;
  cells: CommandCells;
  workerId: string;
  leaseMs: number;
  /** Who owns a run (its RUN_CREATED's user_id): the order runs in their cell, on their budget. */
  ownerOf: (runId: string) => Promise<string | undefined>;
  /** The provider the host's command cells use, recorded in each AAR's model. */
  modelProvider: string;
  garrisonId?: string;
  /** How long an idle loop waits before claiming again (default 1 s). */
  idleMs?: number;
  logger?: Logger;
}

export type WorkerOutcome =
  | { kind: "idle" }
  | { kind: "skipped"; jobId: string; orderId: string; reason: string }
  | { kind: "ran"; jobId: string; orderId: string; attempt: number; status: AttemptStatus; retried: boolean }
  /** The lease ran out while the job ran: another worker may hold it; nothing was reported. */
  | { kind: "lost"; jobId: string; orderId: string };

/**
 * A worker (seed 000 §3.5): claims one job at a time from the queue, runs its order as an agent in a cell of the
 * order's user, gates the agent's completion (seed 001), writes outputs and aar.json, commits, and reports the
 * attempt to the ledger in one batch; a failed attempt within the retry cap is reissued as the next job. The
 * ledger's order state decides what a job does, so a job delivered twice runs once.
 */
export class Worker {
  private stopping = false;
  private readonly loops: Promise<void>[] = [];
  private readonly wake = new AbortController();

  constructor(private readonly options: WorkerOptions) {}

  /** Claims and handles one job; `idle` when none was waiting. */
  async runOnce(): Promise<WorkerOutcome> {
    const { queue, workerId, leaseMs } = this.options;
    const claimed = await queue.claim(workerId, leaseMs);
    if (!claimed) return { kind: "idle" };
    const lease = keepLease(queue, claimed.id, workerId, leaseMs);
    try {
      const outcome = await this.handle(claimed, lease.signal);
      if (outcome.kind !== "lost") await queue.complete(claimed.id, workerId);
      return outcome;
    } catch (error) {
      // The ledger or the vault failing is not the order's fault: the job goes back for another delivery.
      await queue.release(claimed.id, workerId).catch(() => false);
      throw error;
    } finally {
      lease.stop();
    }
  }

  /** Runs `concurrency` loops of runOnce until stop(). */
  start(concurrency = 1): void {
    for (let i = 0; i < concurrency; i++) this.loops.push(this.loop());
  }

  /** Stops claiming; resolves once the jobs being run have finished. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.wake.abort();
    await Promise.all(this.loops);
  }

  private async loop(): Promise<void> {
    while (!this.stopping) {
      try {
        if ((await this.runOnce()).kind === "idle") await this.pause(this.options.idleMs ?? 1_000);
      } catch (error) {
        this.options.logger?.error({ err: error }, "a worker job failed; it goes back to the queue");
        await this.pause(this.options.idleMs ?? 1_000);
      }
    }
  }

  /**
   * Waits `ms`, or until stop(). The wake listener goes when the time is up: an idle loop pauses every second
   * for as long as the host runs, and listeners left on the one signal would pile up without end.
   */
  private pause(ms: number): Promise<void> {
    const { signal } = this.wake;
    if (signal.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const wake = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        signal.removeEventListener("abort", wake);
        resolve();
      }, ms);
      signal.addEventListener("abort", wake, { once: true });
    });
  }

  private async handle(claimed: ClaimedJob, lost: AbortSignal): Promise<WorkerOutcome> {
    const parsed = jobMessageSchema.safeParse(claimed.job);
    const orderId = String((claimed.job as { order_id?: unknown }).order_id ?? "(none)");
    const skip = (reason: string): WorkerOutcome => ({ kind: "skipped", jobId: claimed.id, orderId, reason });
    if (!parsed.success)
      return skip(
        `invalid job: ${issuesFromZod(parsed.error)
          .map((i) => `${i.path} ${i.message}`)
          .join("; ")}`,
      );
    const job = parsed.data;
    const { store } = this.options;
    const order = await store.getOrder(job.order_id);
    if (!order) return skip("no such order in the ledger");
    if (order.run_id !== job.run_id) return skip(`the order belongs to run ${order.run_id}`);
    const plan = planAttempt(order, job, claimed.deliveries, await lastFailure(store, job.order_id));
    if (plan.action === "skip") return skip(plan.reason);
    const base = eventBaseOf(order, job, this.options.garrisonId ?? "local");
    const expect = [{ kind: "order" as const, id: order.order_id, version: order.version }];
    try {
      if (plan.action === "give_up") {
        await store.append({ ...base, type: "ORDER_FAILED", payload: { reason: plan.reason } }, { expect });
        return skip(plan.reason);
      }
      await startAttempt(store, base, plan, this.options.workerId, expect);
    } catch (error) {
      if (error instanceof StreamVersionConflictError) return skip("another worker moved the order first");
      throw error;
    }
    const run = await this.attempt(job, base, plan.attempt, plan.retryCount, lost);
    if (lost.aborted) return { kind: "lost", jobId: claimed.id, orderId };
    const retried = await closeAttempt(this.options, job, base, plan.attempt, run);
    return {
      kind: "ran",
      jobId: claimed.id,
      orderId,
      attempt: plan.attempt,
      status: run.outcome.status,
      retried,
    };
  }

  /** The attempt's work; a failure of the cell, the vault or the order's files is the attempt's failure. */
  private async attempt(
    job: JobMessage,
    base: EventBase,
    attempt: number,
    retryCount: number,
    lost: AbortSignal,
  ): Promise<AttemptRun> {
    try {
      return await runAttempt({ ...this.options, job, base, attempt, retryCount, lost });
    } catch (error) {
      const message = (error as Error).message.slice(0, 1000);
      return {
        outcome: { status: "failed", issues: [{ path: "$", code: "attempt_failed", message }] },
        events: [],
      };
    }
  }
}
