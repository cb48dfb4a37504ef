import { EventEmitter } from "node:events";
import { type FSWatcher, mkdirSync, watch } from "node:fs";
import { basename, dirname } from "node:path";
import type { CronJob, JobRunStatus } from "../../contracts/index.js";
import { createLogger, type Logger, NotFoundError, newId } from "../../core/index.js";
import { type Clock, systemClock } from "./clock.js";
import type { JobStore, RunReason } from "./job-store.js";
import { loadJobsFile, nextRunAfter } from "./jobs-file.js";

/** What running one job produced; `ok: false` with `error` when the agent failed. */
export interface JobOutcome {
  ok: boolean;
  text: string;
  error?: string;
}

export interface JobRunScope {
  runId: string;
  /** A fresh session per run: a job never sees another run's conversation (seed 003 §8.2 step 2). */
  sessionId: string;
  prompt: string;
  reason: RunReason;
  signal: AbortSignal;
}

/** For the host to relay (seed 003 §8.2 step 4); maps onto the protocol's JobStatus message. */
export interface JobNotification {
  jobId: string;
  runId: string;
  sessionId: string;
  status: JobRunStatus;
  reason: RunReason;
  scheduledFor?: string;
  resultRef?: string;
  error?: string;
  text?: string;
}

export interface SchedulerEvents {
  notification: [JobNotification];
  /** jobs.toml could not be loaded; the last good schedule stays in force. */
  config_error: [Error];
  reloaded: [{ jobs: string[] }];
}

export interface CronSchedulerOptions {
  jobsFile: string;
  store: JobStore;
  runJob: (job: CronJob, scope: JobRunScope) => Promise<JobOutcome>;
  /** Appends a run's result to the day's log and returns where (the `last_result_ref`). */
  writeResult: (entry: { title: string; text: string; at: Date }) => Promise<string>;
  clock?: Clock;
  /** Reload when jobs.toml changes; off for one-shot commands. */
  watch?: boolean;
  debounceMs?: number;
  logger?: Logger;
}

// setTimeout holds at most 2^31 - 1 ms (~24.8 days); longer waits re-arm on the way.
const MAX_TIMER_MS = 2 ** 31 - 1;
// How often the wall clock is compared with the monotonic one, and the gap between them that counts as a jump.
const CLOCK_CHECK_MS = 10_000;
const CLOCK_JUMP_MS = 5_000;
// memory.remember takes at most 32 KiB; 8000 characters fit even at four bytes each.
const MAX_RESULT_CHARS = 8_000;

/**
 * Runs the jobs of `cron/jobs.toml` on their croner schedules, mirroring state into SQLite. After downtime each
 * job whose stored `next_run` passed runs once — missed ticks collapse into one catch-up run. Editing jobs.toml
 * reloads the schedule; a file that does not load leaves the last good schedule running and reports why.
 */
export class CronScheduler extends EventEmitter<SchedulerEvents> {
  private jobs = new Map<string, CronJob>();
  private readonly timers = new Map<string, unknown>();
  private readonly running = new Map<string, Promise<void>>();
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly stopController = new AbortController();
  private watcher: FSWatcher | undefined;
  private debounce: NodeJS.Timeout | undefined;
  private clockCheck: unknown;
  private started = false;
  lastError: Error | undefined;

  constructor(private readonly options: CronSchedulerOptions) {
    super();
    this.clock = options.clock ?? systemClock;
    this.logger = options.logger ?? createLogger("scheduler");
  }

  /** Loads jobs.toml, runs the catch-ups that downtime made due, and arms every enabled job. */
  start(): void {
    if (this.started) return;
    this.started = true;
    const now = this.now();
    this.options.store.failInterrupted(now);
    if (!this.load()) {
      this.startWatching();
      return;
    }
    for (const job of this.jobs.values()) {
      const previous = this.options.store.get(job.id)?.nextRun;
      const due =
        job.enabled && previous !== null && previous !== undefined && Date.parse(previous) <= now.getTime();
      this.mirror(job);
      if (due) this.launch(job, "catch_up", previous);
      this.arm(job);
    }
    this.startWatching();
    this.watchClock();
  }

  /** Re-reads jobs.toml; returns false (and keeps the current schedule) when it does not load. */
  reload(): boolean {
    if (!this.load()) return false;
    for (const id of this.timers.keys()) if (!this.jobs.has(id)) this.disarm(id);
    for (const job of this.jobs.values()) {
      this.mirror(job);
      this.arm(job);
    }
    this.emit("reloaded", { jobs: [...this.jobs.keys()] });
    return true;
  }

  /** Runs a job now (JobTrigger, `ironclaw cron run`), with an optional prompt for this run only. */
  async runNow(jobId: string, prompt?: string): Promise<JobNotification> {
    if (this.jobs.size === 0 && !this.started) this.load();
    const job = this.jobs.get(jobId);
    if (!job) throw new NotFoundError(`job in ${this.options.jobsFile}:`, jobId);
    const running = this.running.get(jobId);
    if (running) await running;
    let final: JobNotification | undefined;
    const listener = (n: JobNotification) => {
      if (n.jobId === jobId && n.status !== "running") final = n;
    };
    this.on("notification", listener);
    try {
      this.mirror(job);
      await this.launch(prompt === undefined ? job : { ...job, prompt }, "manual", undefined);
    } finally {
      this.off("notification", listener);
    }
    if (!final) throw new Error(`job ${jobId} finished without a result`);
    return final;
  }

  /** The jobs of the last good jobs.toml. */
  definitions(): CronJob[] {
    return [...this.jobs.values()];
  }

  /** Resolves once no job is running. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.allSettled([...this.running.values()]);
  }

  /** Stops timers and the watcher and aborts running jobs; resolves when they have ended. */
  async stop(): Promise<void> {
    this.watcher?.close();
    this.watcher = undefined;
    clearTimeout(this.debounce);
    if (this.clockCheck !== undefined) this.clock.clearTimer(this.clockCheck);
    this.clockCheck = undefined;
    for (const id of [...this.timers.keys()]) this.disarm(id);
    this.stopController.abort();
    await this.idle();
  }

  private load(): boolean {
    try {
      const file = loadJobsFile(this.options.jobsFile);
      this.jobs = new Map(file.jobs.map((j) => [j.id, j]));
      this.options.store.removeAllBut([...this.jobs.keys()]);
      this.lastError = undefined;
      return true;
    } catch (error) {
      this.lastError = error as Error;
      this.logger.error({ err: error }, "jobs.toml did not load; keeping the last good schedule");
      this.emit("config_error", error as Error);
      return false;
    }
  }

  private mirror(job: CronJob): void {
    const next = job.enabled ? nextRunAfter(job, this.now()) : undefined;
    this.options.store.upsertDefinition(job, next, this.now());
  }

  private arm(job: CronJob): void {
    this.disarm(job.id);
    if (!job.enabled || this.stopController.signal.aborted) return;
    const next = nextRunAfter(job, this.now());
    this.options.store.setNextRun(job.id, next, this.now());
    if (!next) return;
    const wait = next.getTime() - this.clock.now();
    const handle = this.clock.setTimer(
      () => {
        this.timers.delete(job.id);
        const current = this.jobs.get(job.id);
        if (!current) return;
        // A long wait is split; on an early wake-up just arm again for the same run.
        if (this.clock.now() < next.getTime()) {
          this.arm(current);
          return;
        }
        this.launch(current, "scheduled", next.toISOString());
        this.arm(current);
      },
      Math.min(Math.max(0, wait), MAX_TIMER_MS),
    );
    this.timers.set(job.id, handle);
  }

  /**
   * Timers wait in the monotonic clock, schedules are in wall time. When the wall clock jumps against it (a cell
   * resumed from disk: its clock stood still while it was saved, then is set to the host's; a clock set by
   * hand), every armed timer still waits for the old time and a job that fell due is late by the whole jump.
   * So the two are compared every CLOCK_CHECK_MS; after a jump each job whose run passed runs once, as after
   * downtime, and every job is armed again.
   */
  private watchClock(): void {
    const monotonic = this.clock.monotonic?.bind(this.clock);
    if (!monotonic) return;
    let wall = this.clock.now();
    let mono = monotonic();
    const check = () => {
      this.clockCheck = undefined;
      if (this.stopController.signal.aborted) return;
      const nowWall = this.clock.now();
      const nowMono = monotonic();
      const jump = nowWall - wall - (nowMono - mono);
      wall = nowWall;
      mono = nowMono;
      if (Math.abs(jump) > CLOCK_JUMP_MS) this.clockJumped(jump);
      arm();
    };
    const arm = () => {
      this.clockCheck = this.clock.setTimer(check, CLOCK_CHECK_MS);
      // A check alone never keeps a process alive.
      (this.clockCheck as { unref?: () => void }).unref?.();
    };
    arm();
  }

  private clockJumped(jumpMs: number): void {
    this.logger.info({ jumpMs: Math.round(jumpMs) }, "the wall clock jumped; the schedule is armed again");
    const now = this.clock.now();
    for (const job of this.jobs.values()) {
      const previous = this.options.store.get(job.id)?.nextRun;
      if (job.enabled && previous && Date.parse(previous) <= now) this.launch(job, "catch_up", previous);
      this.arm(job);
    }
  }

  private disarm(jobId: string): void {
    const handle = this.timers.get(jobId);
    if (handle !== undefined) this.clock.clearTimer(handle);
    this.timers.delete(jobId);
  }

  /** Starts one run unless the job is still running (overlapping runs of one job would race on its state). */
  private launch(job: CronJob, reason: RunReason, scheduledFor: string | undefined): Promise<void> {
    const busy = this.running.get(job.id);
    if (busy) {
      this.logger.warn({ job: job.id, reason }, "job still running; this tick is skipped");
      return busy;
    }
    const run = this.execute(job, reason, scheduledFor).finally(() => this.running.delete(job.id));
    this.running.set(job.id, run);
    return run;
  }

  private async execute(job: CronJob, reason: RunReason, scheduledFor: string | undefined): Promise<void> {
    const runId = newId();
    const sessionId = newId();
    const startedAt = this.now();
    const base = { jobId: job.id, runId, sessionId, reason, ...(scheduledFor ? { scheduledFor } : {}) };
    this.options.store.startRun({
      runId,
      jobId: job.id,
      reason,
      scheduledFor: scheduledFor ?? null,
      startedAt: startedAt.toISOString(),
      sessionId,
    });
    this.emit("notification", { ...base, status: "running" });
    let outcome: JobOutcome;
    try {
      outcome = await this.options.runJob(job, {
        runId,
        sessionId,
        prompt: job.prompt,
        reason,
        signal: this.stopController.signal,
      });
    } catch (error) {
      outcome = { ok: false, text: "", error: (error as Error).message };
    }
    const finishedAt = this.now();
    const status = outcome.ok ? "succeeded" : "failed";
    let resultRef: string | undefined;
    let error = outcome.ok ? undefined : outcome.error || "the job failed without a message";
    try {
      const body = [
        `_${status} · ${reason.replace("_", "-")} run ${runId} · agent ${job.agent ?? "default"} · session ${sessionId}_`,
        outcome.text.trim() === "" ? "" : clip(outcome.text.trim()),
        error ? `Error: ${error}` : "",
      ].filter((s) => s !== "");
      resultRef = await this.options.writeResult({
        title: `Cron ${job.id} ${finishedAt.toISOString().slice(0, 16).replace("T", " ")} UTC`,
        text: body.join("\n\n"),
        at: finishedAt,
      });
    } catch (writeError) {
      error = `${error ? `${error}; ` : ""}result not logged: ${(writeError as Error).message}`;
    }
    const finalStatus = error && outcome.ok ? "failed" : status;
    this.options.store.finishRun({
      runId,
      jobId: job.id,
      status: finalStatus,
      finishedAt: finishedAt.toISOString(),
      resultRef: resultRef ?? null,
      error: error ?? null,
    });
    this.emit("notification", {
      ...base,
      status: finalStatus,
      text: outcome.text,
      ...(resultRef ? { resultRef } : {}),
      ...(error ? { error } : {}),
    });
  }

  private startWatching(): void {
    if (this.options.watch === false || this.watcher) return;
    const dir = dirname(this.options.jobsFile);
    const name = basename(this.options.jobsFile);
    mkdirSync(dir, { recursive: true });
    // The directory is watched, not the file: editors save by writing a new file and renaming it over the old.
    this.watcher = watch(dir, (_event, filename) => {
      if (filename !== null && filename !== name) return;
      clearTimeout(this.debounce);
      this.debounce = setTimeout(() => this.reload(), this.options.debounceMs ?? 200);
    });
    this.watcher.on("error", (error) => this.logger.warn({ err: error }, "watching jobs.toml failed"));
  }

  private now(): Date {
    return new Date(this.clock.now());
  }
}

function clip(text: string): string {
  return text.length > MAX_RESULT_CHARS ? `${text.slice(0, MAX_RESULT_CHARS)}\n[cut]` : text;
}
