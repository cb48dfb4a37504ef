import type Database from "better-sqlite3";
import type { CronJob, JobRunReason } from "../../contracts/index.js";

/** A job's state as the UI and `ironclaw cron list` read it (seed 003 §8.2). */
export const JOB_STATES = ["scheduled", "running", "succeeded", "failed", "disabled"] as const;
export type JobState = (typeof JOB_STATES)[number];

/** Why a run happened: its tick came, a missed tick was caught up after downtime, or someone asked. */
export type RunReason = JobRunReason;

export interface JobRow {
  jobId: string;
  schedule: string;
  timezone: string;
  agent: string | null;
  enabled: boolean;
  nextRun: string | null;
  lastRun: string | null;
  status: JobState;
  lastResultRef: string | null;
  lastError: string | null;
  updatedAt: string;
}

export interface RunRow {
  runId: string;
  jobId: string;
  reason: RunReason;
  scheduledFor: string | null;
  startedAt: string;
  finishedAt: string | null;
  status: "running" | "succeeded" | "failed";
  sessionId: string;
  resultRef: string | null;
  error: string | null;
}

interface RawJob {
  job_id: string;
  schedule: string;
  timezone: string;
  agent: string | null;
  enabled: number;
  next_run: string | null;
  last_run: string | null;
  status: JobState;
  last_result_ref: string | null;
  last_error: string | null;
  updated_at: string;
}

/** The SQLite mirror of jobs.toml plus run history (`agent_cron_jobs`, `agent_cron_runs`). */
export class JobStore {
  constructor(private readonly db: Database.Database) {}

  get(jobId: string): JobRow | undefined {
    const raw = this.db.prepare("SELECT * FROM agent_cron_jobs WHERE job_id = ?").get(jobId) as
      | RawJob
      | undefined;
    return raw && toRow(raw);
  }

  list(): JobRow[] {
    return (this.db.prepare("SELECT * FROM agent_cron_jobs ORDER BY job_id").all() as RawJob[]).map(toRow);
  }

  /** Mirrors a job's definition; keeps its history columns, and its status unless it is running. */
  upsertDefinition(job: CronJob, nextRun: Date | undefined, at: Date): void {
    const status: JobState = job.enabled ? "scheduled" : "disabled";
    this.db
      .prepare(
        `INSERT INTO agent_cron_jobs (job_id, schedule, timezone, agent, enabled, next_run, status, updated_at)
         VALUES (@id, @schedule, @timezone, @agent, @enabled, @next, @status, @at)
         ON CONFLICT(job_id) DO UPDATE SET schedule = @schedule, timezone = @timezone, agent = @agent,
           enabled = @enabled, next_run = @next, updated_at = @at,
           status = CASE WHEN status = 'running' THEN status
                         WHEN @enabled = 0 THEN 'disabled'
                         WHEN status = 'disabled' THEN 'scheduled'
                         ELSE status END`,
      )
      .run({
        id: job.id,
        schedule: job.schedule,
        timezone: job.timezone,
        agent: job.agent ?? null,
        enabled: job.enabled ? 1 : 0,
        next: nextRun?.toISOString() ?? null,
        status,
        at: at.toISOString(),
      });
  }

  setNextRun(jobId: string, nextRun: Date | undefined, at: Date): void {
    this.db
      .prepare("UPDATE agent_cron_jobs SET next_run = ?, updated_at = ? WHERE job_id = ?")
      .run(nextRun?.toISOString() ?? null, at.toISOString(), jobId);
  }

  /** Removes jobs no longer in jobs.toml; their run history stays. */
  removeAllBut(jobIds: readonly string[]): void {
    const keep = new Set(jobIds);
    for (const row of this.list()) {
      if (!keep.has(row.jobId))
        this.db.prepare("DELETE FROM agent_cron_jobs WHERE job_id = ?").run(row.jobId);
    }
  }

  startRun(
    run: Pick<RunRow, "runId" | "jobId" | "reason" | "scheduledFor" | "startedAt" | "sessionId">,
  ): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          `INSERT INTO agent_cron_runs (run_id, job_id, reason, scheduled_for, started_at, status, session_id)
           VALUES (?, ?, ?, ?, ?, 'running', ?)`,
        )
        .run(run.runId, run.jobId, run.reason, run.scheduledFor, run.startedAt, run.sessionId);
      this.db
        .prepare(
          "UPDATE agent_cron_jobs SET status = 'running', last_run = ?, updated_at = ? WHERE job_id = ?",
        )
        .run(run.startedAt, run.startedAt, run.jobId);
    })();
  }

  finishRun(
    run: Pick<RunRow, "runId" | "jobId" | "finishedAt" | "resultRef" | "error"> & {
      status: "succeeded" | "failed";
    },
  ): void {
    this.db.transaction(() => {
      this.db
        .prepare(
          "UPDATE agent_cron_runs SET finished_at = ?, status = ?, result_ref = ?, error = ? WHERE run_id = ?",
        )
        .run(run.finishedAt, run.status, run.resultRef, run.error, run.runId);
      this.db
        .prepare(
          `UPDATE agent_cron_jobs SET status = CASE WHEN enabled = 0 THEN 'disabled' ELSE ? END,
             last_result_ref = COALESCE(?, last_result_ref), last_error = ?, updated_at = ? WHERE job_id = ?`,
        )
        .run(run.status, run.resultRef, run.error, run.finishedAt, run.jobId);
    })();
  }

  /** Runs left `running` by a runtime that stopped mid-run are failed, so they neither hang nor vanish. */
  failInterrupted(at: Date): number {
    const error = "interrupted: the runtime stopped during the run";
    return this.db.transaction(() => {
      const { changes } = this.db
        .prepare(
          "UPDATE agent_cron_runs SET status = 'failed', finished_at = ?, error = ? WHERE status = 'running'",
        )
        .run(at.toISOString(), error);
      this.db
        .prepare(
          "UPDATE agent_cron_jobs SET status = 'failed', last_error = ?, updated_at = ? WHERE status = 'running'",
        )
        .run(error, at.toISOString());
      return changes;
    })();
  }

  runs(jobId: string): RunRow[] {
    const rows = this.db
      .prepare("SELECT * FROM agent_cron_runs WHERE job_id = ? ORDER BY started_at, run_id")
      .all(jobId) as Array<Record<string, string | null>>;
    return rows.map((r) => ({
      runId: String(r.run_id),
      jobId: String(r.job_id),
      reason: r.reason as RunReason,
      scheduledFor: r.scheduled_for ?? null,
      startedAt: String(r.started_at),
      finishedAt: r.finished_at ?? null,
      status: r.status as RunRow["status"],
      sessionId: String(r.session_id),
      resultRef: r.result_ref ?? null,
      error: r.error ?? null,
    }));
  }
}

function toRow(raw: RawJob): JobRow {
  return {
    jobId: raw.job_id,
    schedule: raw.schedule,
    timezone: raw.timezone,
    agent: raw.agent,
    enabled: raw.enabled === 1,
    nextRun: raw.next_run,
    lastRun: raw.last_run,
    status: raw.status,
    lastResultRef: raw.last_result_ref,
    lastError: raw.last_error,
    updatedAt: raw.updated_at,
  };
}
