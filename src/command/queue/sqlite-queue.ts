import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import Database from "better-sqlite3";
import type { JobMessage } from "../../contracts/index.js";
import { newId, nowIso } from "../../core/index.js";
import type { ClaimedJob, EnqueueResult, JobQueue, QueueCounts } from "./job-queue.js";
import { admitJob, checkLease, checkWorker } from "./queue-input.js";

export interface SqliteQueueOptions {
  /** PRAGMA synchronous: FULL (default) syncs the WAL on every commit, so an acknowledged enqueue survives power loss. */
  synchronous?: "FULL" | "NORMAL";
  /** How long a claim waits for another process's write transaction before failing (default 10 s). */
  busyTimeoutMs?: number;
}

/**
 * `seq` orders jobs by enqueue; `key` stays unique while the row exists, done rows included, so a job finished
 * once is not queued again. A held row whose lease has passed is claimable as it is: nothing has to sweep it.
 * Leases are epoch milliseconds of the host's clock, which every process sharing the file reads alike.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS jobs (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  id TEXT NOT NULL UNIQUE,
  key TEXT NOT NULL UNIQUE,
  job TEXT NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('waiting', 'held', 'done')),
  deliveries INTEGER NOT NULL DEFAULT 0,
  worker_id TEXT,
  lease_expires_ms INTEGER,
  enqueued_at TEXT NOT NULL,
  done_at TEXT
) STRICT;
CREATE INDEX IF NOT EXISTS jobs_open ON jobs (seq) WHERE state <> 'done';
`;

interface ClaimRow {
  id: string;
  job: string;
  deliveries: number;
  lease_expires_ms: number;
}

/** Holder checks shared by renew, complete and release: the worker's own lease, not yet expired. */
const HELD_BY = "id = @id AND state = 'held' AND worker_id = @worker AND lease_expires_ms > @now";

/**
 * The embedded worker queue: one SQLite file in WAL mode beside the ledger. Every write is a BEGIN IMMEDIATE
 * transaction, so processes sharing the file queue on its write lock and a claim's pick and lease are one step
 * no other claimer can interleave with. better-sqlite3 is synchronous; the async interface matches PostgreSQL's.
 */
export class SqliteJobQueue implements JobQueue {
  readonly kind = "sqlite" as const;
  private readonly insert: Database.Statement;
  private readonly existing: Database.Statement<[string], { id: string }>;
  private readonly pick: Database.Statement;
  private readonly renewal: Database.Statement;
  private readonly completion: Database.Statement;
  private readonly giveBack: Database.Statement;
  private readonly tally: Database.Statement<[{ now: number }], QueueCounts>;
  private readonly enqueueTx: Database.Transaction<(key: string, job: JobMessage) => EnqueueResult>;
  private readonly writeTx: Database.Transaction<(work: () => unknown) => unknown>;

  private constructor(private readonly db: Database.Database) {
    this.insert = db.prepare(
      `INSERT INTO jobs (id, key, job, state, enqueued_at) VALUES (@id, @key, @job, 'waiting', @at)
       ON CONFLICT (key) DO NOTHING`,
    );
    this.existing = db.prepare("SELECT id FROM jobs WHERE key = ?");
    this.pick = db.prepare(
      `UPDATE jobs SET state = 'held', worker_id = @worker, lease_expires_ms = @until, deliveries = deliveries + 1
       WHERE seq = (SELECT seq FROM jobs WHERE state <> 'done' AND (state = 'waiting' OR lease_expires_ms <= @now)
                    ORDER BY seq LIMIT 1)
       RETURNING id, job, deliveries, lease_expires_ms`,
    );
    this.renewal = db.prepare(`UPDATE jobs SET lease_expires_ms = @until WHERE ${HELD_BY}`);
    this.completion = db.prepare(`UPDATE jobs SET state = 'done', done_at = @at WHERE ${HELD_BY}`);
    this.giveBack = db.prepare(
      `UPDATE jobs SET state = 'waiting', worker_id = NULL, lease_expires_ms = NULL WHERE ${HELD_BY}`,
    );
    this.tally = db.prepare(
      `SELECT coalesce(sum(state = 'waiting' OR (state = 'held' AND lease_expires_ms <= @now)), 0) AS waiting,
              coalesce(sum(state = 'held' AND lease_expires_ms > @now), 0) AS held,
              coalesce(sum(state = 'done'), 0) AS done
       FROM jobs`,
    );
    this.writeTx = db.transaction((work) => work());
    this.enqueueTx = db.transaction((key, job) => {
      const id = newId();
      if (this.insert.run({ id, key, job: JSON.stringify(job), at: nowIso() }).changes === 1)
        return { id, duplicate: false };
      const row = this.existing.get(key);
      if (!row) throw new Error(`enqueue: key ${key} neither inserted nor found`);
      return { id: row.id, duplicate: true };
    });
  }

  /** Opens the queue file, creating it (and its directory) with its table if it does not exist. */
  static async open(file: string, options: SqliteQueueOptions = {}): Promise<SqliteJobQueue> {
    mkdirSync(dirname(file), { recursive: true });
    const db = new Database(file);
    try {
      db.pragma(`busy_timeout = ${options.busyTimeoutMs ?? 10_000}`);
      db.pragma("journal_mode = WAL");
      db.pragma(`synchronous = ${options.synchronous ?? "FULL"}`);
      db.exec(SCHEMA);
      return new SqliteJobQueue(db);
    } catch (error) {
      db.close();
      throw error;
    }
  }

  async enqueue(job: JobMessage, options: { key?: string } = {}): Promise<EnqueueResult> {
    const admitted = admitJob(job, options.key);
    return this.enqueueTx.immediate(admitted.key, admitted.job);
  }

  async claim(workerId: string, leaseMs: number): Promise<ClaimedJob | undefined> {
    checkLease(workerId, leaseMs);
    const row = this.write(() => {
      const now = Date.now();
      return this.pick.get({ worker: workerId, until: now + leaseMs, now }) as ClaimRow | undefined;
    });
    if (!row) return undefined;
    return {
      id: row.id,
      job: JSON.parse(row.job) as JobMessage,
      deliveries: row.deliveries,
      leaseExpiresAt: new Date(row.lease_expires_ms).toISOString(),
    };
  }

  async renew(id: string, workerId: string, leaseMs: number): Promise<boolean> {
    checkLease(workerId, leaseMs);
    return this.write(() => {
      const now = Date.now();
      return this.renewal.run({ id, worker: workerId, now, until: now + leaseMs }).changes === 1;
    });
  }

  async complete(id: string, workerId: string): Promise<boolean> {
    checkWorker(workerId);
    return this.write(
      () => this.completion.run({ id, worker: workerId, now: Date.now(), at: nowIso() }).changes === 1,
    );
  }

  async release(id: string, workerId: string): Promise<boolean> {
    checkWorker(workerId);
    return this.write(() => this.giveBack.run({ id, worker: workerId, now: Date.now() }).changes === 1);
  }

  async counts(): Promise<QueueCounts> {
    const row = this.tally.get({ now: Date.now() });
    return { waiting: row?.waiting ?? 0, held: row?.held ?? 0, done: row?.done ?? 0 };
  }

  async close(): Promise<void> {
    if (this.db.open) this.db.close();
  }

  /**
   * Runs a write under BEGIN IMMEDIATE: the clock is read after the write lock is taken, so a lease is judged
   * against the time the decision is made, not the time the claimer started waiting for the lock.
   */
  private write<T>(work: () => T): T {
    return this.writeTx.immediate(work) as T;
  }
}
