import { type JobMessage, jobMessageSchema } from "../../contracts/index.js";
import { issuesFromZod, type Logger } from "../../core/index.js";
import { type EventStore, StreamVersionConflictError } from "../../ledger/index.js";
import type { CommandCells } from "../cells/index.js";
import type { ClaimedJob, JobQueue } from "../queue/job-queue.js";
import { AttemptGuard } from "./attempt-guard.js";
import { closeAttempt, eventBaseOf, lastFailure, startAttempt } from "./attempt-ledger.js";
import { planAttempt, type RunningPlan } from "./attempt-plan.js";
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
  | { kind: "lost"; jobId: string; orderId: string }
  /** The order was reissued while this attempt ran: its files stayed out of the worktree, its result was refused. */
  | { kind: "superseded"; jobId: string; orderId: string; attempt: number }
  /** The job is for an attempt the ledger has not reissued yet: given back to the queue, to be claimed again. */
  | { kind: "waiting"; jobId: string; orderId: string; reason: string };

/** What begin() did: ended the job's work (skipped, waiting, gave up) or started its attempt. */
type Begun = WorkerOutcome | { kind: "started"; base: EventBase; plan: RunningPlan };

/** Another writer appending to the order between our read and ORDER_STARTED: read again and decide again. */
const START_TRIES = 3;

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
      if (outcome.kind === "waiting") await queue.release(claimed.id, workerId);
      else if (outcome.kind !== "lost") await queue.complete(claimed.id, workerId);
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
        const { kind } = await this.runOnce();
        if (kind === "idle" || kind === "waiting") await this.pause(this.options.idleMs ?? 1_000);
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
    const begun = await this.beginWithRetry(claimed, job);
    if (begun.kind !== "started") return begun;
    return this.runStarted(claimed, job, begun.base, begun.plan, lost);
  }

  /**
   * begin(), again on a version conflict: a dispatcher's or the duty officer's ORDER_ENQUEUED lands after the job
   * it names is queued, so a worker quick to claim it finds the order moved; dropping the job then would leave
   * the order QUEUED with none. Past the last try the conflict goes up and runOnce gives the job back.
   */
  private async beginWithRetry(claimed: ClaimedJob, job: JobMessage): Promise<Begun> {
    for (let tries = 1; ; tries++) {
      try {
        return await this.begin(claimed, job);
      } catch (error) {
        if (!(error instanceof StreamVersionConflictError) || tries >= START_TRIES) throw error;
      }
    }
  }

  /** Decides from the order's state what the job does, and starts its attempt; a version conflict throws. */
  private async begin(claimed: ClaimedJob, job: JobMessage): Promise<Begun> {
    const { store } = this.options;
    const orderId = job.order_id;
    const skip = (reason: string): WorkerOutcome => ({ kind: "skipped", jobId: claimed.id, orderId, reason });
    const order = await store.getOrder(orderId);
    if (!order) return skip("no such order in the ledger");
    if (order.run_id !== job.run_id) return skip(`the order belongs to run ${order.run_id}`);
    const plan = planAttempt(order, job, claimed.deliveries, await lastFailure(store, orderId));
    if (plan.action === "skip") return skip(plan.reason);
    if (plan.action === "wait") return { kind: "waiting", jobId: claimed.id, orderId, reason: plan.reason };
    const base = eventBaseOf(order, job, this.options.garrisonId ?? "local");
    const expect = [{ kind: "order" as const, id: order.order_id, version: order.version }];
    if (plan.action === "give_up") {
      await store.append({ ...base, type: "ORDER_FAILED", payload: { reason: plan.reason } }, { expect });
      return skip(plan.reason);
    }
    await startAttempt(store, base, plan, this.options.workerId, expect);
    return { kind: "started", base, plan };
  }

  /** Runs a started attempt and closes it, as long as it stays the order's current attempt. */
  private async runStarted(
    claimed: ClaimedJob,
    job: JobMessage,
    base: EventBase,
    plan: RunningPlan,
    lost: AbortSignal,
  ): Promise<WorkerOutcome> {
    const { store, leaseMs } = this.options;
    const ids = { jobId: claimed.id, orderId: job.order_id };
    const guard = new AttemptGuard(store, job.order_id, plan.attempt, Math.floor(leaseMs / 3));
    try {
      const stop = AbortSignal.any([lost, guard.signal]);
      const run = await this.attempt(job, base, plan, stop, () => guard.check());
      const closed =
        guard.signal.aborted || lost.aborted
          ? undefined
          : await closeAttempt(this.options, job, base, plan.attempt, run);
      if (guard.signal.aborted || closed === "superseded") {
        this.options.logger?.warn(
          { order_id: job.order_id, attempt: plan.attempt },
          "the order was reissued while this attempt ran: its result is refused",
        );
        return { kind: "superseded", ...ids, attempt: plan.attempt };
      }
      if (closed === undefined) return { kind: "lost", ...ids };
      return {
        kind: "ran",
        ...ids,
        attempt: plan.attempt,
        status: run.outcome.status,
        retried: closed === "retried",
      };
    } finally {
      guard.stop();
    }
  }

  /** The attempt's work; a failure of the cell, the vault or the order's files is the attempt's failure. */
  private async attempt(
    job: JobMessage,
    base: EventBase,
    plan: RunningPlan,
    stop: AbortSignal,
    current: () => Promise<boolean>,
  ): Promise<AttemptRun> {
    const { attempt, retryCount } = plan;
    try {
      return await runAttempt({ ...this.options, job, base, attempt, retryCount, lost: stop, current });
    } catch (error) {
      const message = (error as Error).message.slice(0, 1000);
      return {
        outcome: { status: "failed", issues: [{ path: "$", code: "attempt_failed", message }] },
        events: [],
      };
    }
  }
}
