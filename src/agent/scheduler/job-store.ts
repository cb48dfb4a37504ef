import { type CronJob, JOB_RUN_REASONS, type JobRunReason } from "../../contracts/index.js";
import type { AgentDatabase } from "../agent-db.js";

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
  status: string;
  last_result_ref: string | null;
  last_error: string | null;
  updated_at: string;
}

interface RawRun {
  run_id: string;
  job_id: string;
  reason: string;
  scheduled_for: string | null;
  started_at: string;
  finished_at: string | null;
  status: string;
  session_id: string;
  result_ref: string | null;
  error: string | null;
}

interface Definition {
  id: string;
  schedule: string;
  timezone: string;
  agent: string | null;
  enabled: number;
  next: string | null;
  status: JobState;
  at: string;
}

/** The SQLite mirror of jobs.toml plus run history (`agent_cron_jobs`, `agent_cron_runs`). */
export class JobStore {
  private readonly sql;

  constructor(private readonly db: AgentDatabase) {
    this.sql = {
      get: db.prepare<[string], RawJob>("SELECT * FROM agent_cron_jobs WHERE job_id = ?"),
      list: db.prepare<[], RawJob>("SELECT * FROM agent_cron_jobs ORDER BY job_id"),
      upsert: db.prepare<[Definition]>(
        `INSERT INTO agent_cron_jobs (job_id, schedule, timezone, agent, enabled, next_run, status, updated_at)
         VALUES (@id, @schedule, @timezone, @agent, @enabled, @next, @status, @at)
         ON CONFLICT(job_id) DO UPDATE SET schedule = @schedule, timezone = @timezone, agent = @agent,
           enabled = @enabled, next_run = @next, updated_at = @at,
           status = CASE WHEN status = 'running' THEN status
                         WHEN @enabled = 0 THEN 'disabled'
                         WHEN status = 'disabled' THEN 'scheduled'
                         ELSE status END`,
      ),
      setNextRun: db.prepare<[string | null, string, string]>(
        "UPDATE agent_cron_jobs SET next_run = ?, updated_at = ? WHERE job_id = ?",
      ),
      remove: db.prepare<[string]>("DELETE FROM agent_cron_jobs WHERE job_id = ?"),
      insertRun: db.prepare<[string, string, RunReason, string | null, string, string]>(
        `INSERT INTO agent_cron_runs (run_id, job_id, reason, scheduled_for, started_at, status, session_id)
         VALUES (?, ?, ?, ?, ?, 'running', ?)`,
      ),
      markRunning: db.prepare<[string, string, string]>(
        "UPDATE agent_cron_jobs SET status = 'running', last_run = ?, updated_at = ? WHERE job_id = ?",
      ),
      finishRun: db.prepare<[string | null, string, string | null, string | null, string]>(
        "UPDATE agent_cron_runs SET finished_at = ?, status = ?, result_ref = ?, error = ? WHERE run_id = ?",
      ),
      markFinished: db.prepare<[string, string | null, string | null, string | null, string]>(
        `UPDATE agent_cron_jobs SET status = CASE WHEN enabled = 0 THEN 'disabled' ELSE ? END,
           last_result_ref = COALESCE(?, last_result_ref), last_error = ?, updated_at = ? WHERE job_id = ?`,
      ),
      failRuns: db.prepare<[string, string]>(
        "UPDATE agent_cron_runs SET status = 'failed', finished_at = ?, error = ? WHERE status = 'running'",
      ),
      failJobs: db.prepare<[string, string]>(
        "UPDATE agent_cron_jobs SET status = 'failed', last_error = ?, updated_at = ? WHERE status = 'running'",
      ),
      runs: db.prepare<[string], RawRun>(
        "SELECT * FROM agent_cron_runs WHERE job_id = ? ORDER BY started_at, run_id",
      ),
    };
  }

  get(jobId: string): JobRow | undefined {
    const raw = this.sql.get.get(jobId);
    return raw && toJob(raw);
  }

  list(): JobRow[] {
    return this.sql.list.all().map(toJob);
  }

  /** Mirrors a job's definition; keeps its history columns, and its status unless it is running. */
  upsertDefinition(job: CronJob, nextRun: Date | undefined, at: Date): void {
    this.sql.upsert.run({
      id: job.id,
      schedule: job.schedule,
      timezone: job.timezone,
      agent: job.agent ?? null,
      enabled: job.enabled ? 1 : 0,
      next: nextRun?.toISOString() ?? null,
      status: job.enabled ? "scheduled" : "disabled",
      at: at.toISOString(),
    });
  }

  setNextRun(jobId: string, nextRun: Date | undefined, at: Date): void {
    this.sql.setNextRun.run(nextRun?.toISOString() ?? null, at.toISOString(), jobId);
  }

  /** Removes jobs no longer in jobs.toml; their run history stays. */
  removeAllBut(jobIds: readonly string[]): void {
    const keep = new Set(jobIds);
    for (const row of this.list()) if (!keep.has(row.jobId)) this.sql.remove.run(row.jobId);
  }

  startRun(
    run: Pick<RunRow, "runId" | "jobId" | "reason" | "scheduledFor" | "startedAt" | "sessionId">,
  ): void {
    this.db.transaction(() => {
      this.sql.insertRun.run(
        run.runId,
        run.jobId,
        run.reason,
        run.scheduledFor,
        run.startedAt,
        run.sessionId,
      );
      this.sql.markRunning.run(run.startedAt, run.startedAt, run.jobId);
    });
  }

  finishRun(
    run: Pick<RunRow, "runId" | "jobId" | "finishedAt" | "resultRef" | "error"> & {
      status: "succeeded" | "failed";
    },
  ): void {
    this.db.transaction(() => {
      this.sql.finishRun.run(run.finishedAt, run.status, run.resultRef, run.error, run.runId);
      this.sql.markFinished.run(run.status, run.resultRef, run.error, run.finishedAt, run.jobId);
    });
  }

  /** Runs left `running` by a runtime that stopped mid-run are failed, so they neither hang nor vanish. */
  failInterrupted(at: Date): number {
    const error = "interrupted: the runtime stopped during the run";
    return this.db.transaction(() => {
      const { changes } = this.sql.failRuns.run(at.toISOString(), error);
      this.sql.failJobs.run(error, at.toISOString());
      return changes;
    });
  }

  runs(jobId: string): RunRow[] {
    return this.sql.runs.all(jobId).map(toRun);
  }
}

// Rows are parsed, not cast: a value outside the enums is a corrupt row, named as such.
function oneOf<T extends string>(allowed: readonly T[], value: string, column: string): T {
  const found = allowed.find((a) => a === value);
  if (found === undefined)
    throw new TypeError(`${column} ${JSON.stringify(value)} is not one of ${allowed.join(", ")}`);
  return found;
}

const RUN_STATES = ["running", "succeeded", "failed"] as const;

function toJob(raw: RawJob): JobRow {
  return {
    jobId: raw.job_id,
    schedule: raw.schedule,
    timezone: raw.timezone,
    agent: raw.agent,
    enabled: raw.enabled === 1,
    nextRun: raw.next_run,
    lastRun: raw.last_run,
    status: oneOf(JOB_STATES, raw.status, "agent_cron_jobs.status"),
    lastResultRef: raw.last_result_ref,
    lastError: raw.last_error,
    updatedAt: raw.updated_at,
  };
}

function toRun(raw: RawRun): RunRow {
  return {
    runId: raw.run_id,
    jobId: raw.job_id,
    reason: oneOf(JOB_RUN_REASONS, raw.reason, "agent_cron_runs.reason"),
    scheduledFor: raw.scheduled_for,
    startedAt: raw.started_at,
    finishedAt: raw.finished_at,
    status: oneOf(RUN_STATES, raw.status, "agent_cron_runs.status"),
    sessionId: raw.session_id,
    resultRef: raw.result_ref,
    error: raw.error,
  };
}
