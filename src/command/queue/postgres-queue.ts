import pg from "pg";
import type { JobMessage } from "../../contracts/index.js";
import { newId } from "../../core/index.js";
import type { ClaimedJob, EnqueueResult, JobQueue, QueueCounts } from "./job-queue.js";
import { queueSql } from "./postgres-queue-sql.js";
import { admitJob, checkLease, checkWorker } from "./queue-input.js";

export interface PostgresQueueOptions {
  /** A connection string, e.g. postgres://user@127.0.0.1:5432/ironclaw (the ledger's). */
  url: string;
  /** The schema holding the queue's table (default `command_queue`), beside the ledger's own. */
  schema?: string;
  poolSize?: number;
}

interface ClaimRow {
  id: string;
  job: JobMessage;
  deliveries: number;
  lease_expires_at: Date;
}

/**
 * The scale-out worker queue: one table in the ledger's PostgreSQL, claimed with `FOR UPDATE SKIP LOCKED`, so
 * any number of worker processes on any number of hosts take jobs without taking the same one.
 *
 * Why not pg-boss (10.x, the Node 20 line): its expiry is a maintenance sweep that runs at most once a second
 * and moves an expired job to retry, so a job is not claimable the moment its lease passes, and leases are
 * whole seconds; it has no call to extend a running job's lease; it completes a job by id for anyone,
 * without knowing which worker holds it, so a presumed-dead worker that wakes up could complete the job its
 * successor is running; and its singleton keys stop a duplicate only while the job is queued or active, not
 * once it is done. The queue's contract needs all four, and they are a few statements of plain SQL.
 */
export class PostgresJobQueue implements JobQueue {
  readonly kind = "postgres" as const;
  private closed = false;

  private constructor(
    private readonly pool: pg.Pool,
    private readonly sql: ReturnType<typeof queueSql>,
  ) {}

  /** Connects and creates the queue's schema and table if they do not exist. */
  static async open(options: PostgresQueueOptions): Promise<PostgresJobQueue> {
    const sql = queueSql(options.schema ?? "command_queue");
    const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 4 });
    // An idle client whose server went away must not crash the process; the next query reconnects.
    pool.on("error", () => {});
    const client = await pool.connect().catch(async (error: unknown) => {
      await pool.end();
      throw error;
    });
    try {
      await client.query(sql.create);
      client.release();
    } catch (error) {
      client.release(true);
      await pool.end();
      throw error;
    }
    return new PostgresJobQueue(pool, sql);
  }

  async enqueue(job: JobMessage, options: { key?: string } = {}): Promise<EnqueueResult> {
    const admitted = admitJob(job, options.key);
    const id = newId();
    // A conflicting insert waits for the other transaction; the next statement's snapshot then sees its row.
    // Only if that transaction rolled back is there nothing to see, and the insert is tried again.
    for (let tries = 0; tries < 3; tries++) {
      const inserted = await this.pool.query(this.sql.insert, [
        id,
        admitted.key,
        JSON.stringify(admitted.job),
      ]);
      if (inserted.rowCount === 1) return { id, duplicate: false };
      const found = await this.pool.query<{ id: string }>(this.sql.existing, [admitted.key]);
      const row = found.rows[0];
      if (row) return { id: row.id, duplicate: true };
    }
    throw new Error(`enqueue: key ${admitted.key} neither inserted nor found`);
  }

  async claim(workerId: string, leaseMs: number): Promise<ClaimedJob | undefined> {
    checkLease(workerId, leaseMs);
    const result = await this.pool.query<ClaimRow>(this.sql.claim, [workerId, leaseMs]);
    const row = result.rows[0];
    if (!row) return undefined;
    return {
      id: row.id,
      job: row.job,
      deliveries: row.deliveries,
      leaseExpiresAt: row.lease_expires_at.toISOString(),
    };
  }

  async renew(id: string, workerId: string, leaseMs: number): Promise<boolean> {
    checkLease(workerId, leaseMs);
    return (await this.pool.query(this.sql.renew, [id, workerId, leaseMs])).rowCount === 1;
  }

  async complete(id: string, workerId: string): Promise<boolean> {
    checkWorker(workerId);
    return (await this.pool.query(this.sql.complete, [id, workerId])).rowCount === 1;
  }

  async release(id: string, workerId: string): Promise<boolean> {
    checkWorker(workerId);
    return (await this.pool.query(this.sql.release, [id, workerId])).rowCount === 1;
  }

  async counts(): Promise<QueueCounts> {
    const result = await this.pool.query<QueueCounts>(this.sql.counts);
    const row = result.rows[0];
    return { waiting: row?.waiting ?? 0, held: row?.held ?? 0, done: row?.done ?? 0 };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.pool.end();
  }
}
