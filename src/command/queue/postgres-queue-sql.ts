import { InvalidInputError } from "../../core/index.js";

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,47}$/;

/** First key of the advisory lock that serialises creating a queue's schema: "JOB" in ASCII. */
const LOCK_CLASS = 0x4a4f42;

/**
 * The statements of one queue, which lives in its own PostgreSQL schema. Times are the server's
 * (clock_timestamp(), not the transaction's start), so workers on hosts whose clocks disagree judge a lease
 * alike. Expiry is kept to whole milliseconds, as the ISO string a claimer gets back states it.
 */
export function queueSql(schema: string) {
  if (!SCHEMA_NAME.test(schema))
    throw new InvalidInputError("schema", "must be a lowercase SQL name: a-z or _ first, then a-z, 0-9 or _");
  const jobs = `${schema}.jobs`;
  const until = "date_trunc('milliseconds', clock_timestamp()) + $LEASE::float8 * interval '1 millisecond'";
  const heldBy = "id = $1 AND state = 'held' AND worker_id = $2 AND lease_expires_at > clock_timestamp()";
  return {
    /** Concurrent first opens queue on the advisory lock instead of racing CREATE … IF NOT EXISTS. */
    create: `BEGIN;
SELECT pg_advisory_xact_lock(${LOCK_CLASS}, ${hash32(schema)});
CREATE SCHEMA IF NOT EXISTS ${schema};
CREATE TABLE IF NOT EXISTS ${jobs} (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id text NOT NULL UNIQUE,
  key text NOT NULL UNIQUE,
  job json NOT NULL,
  state text NOT NULL CHECK (state IN ('waiting', 'held', 'done')),
  deliveries integer NOT NULL DEFAULT 0,
  worker_id text,
  lease_expires_at timestamptz,
  enqueued_at timestamptz NOT NULL DEFAULT clock_timestamp(),
  done_at timestamptz
);
CREATE INDEX IF NOT EXISTS jobs_open ON ${jobs} (seq) WHERE state <> 'done';
COMMIT;`,
    insert: `INSERT INTO ${jobs} (id, key, job, state) VALUES ($1, $2, $3, 'waiting')
             ON CONFLICT (key) DO NOTHING RETURNING id`,
    existing: `SELECT id FROM ${jobs} WHERE key = $1`,
    /**
     * SKIP LOCKED passes over a row another claimer is taking; one it took and committed meanwhile is re-checked
     * against the new row version by FOR UPDATE and no longer matches. Either way no two claimers lease one job.
     */
    claim: `UPDATE ${jobs} SET state = 'held', worker_id = $1, deliveries = deliveries + 1,
              lease_expires_at = ${until.replace("$LEASE", "$2")}
            WHERE seq = (SELECT seq FROM ${jobs}
                         WHERE state <> 'done' AND (state = 'waiting' OR lease_expires_at <= clock_timestamp())
                         ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED)
            RETURNING id, job, deliveries, lease_expires_at`,
    renew: `UPDATE ${jobs} SET lease_expires_at = ${until.replace("$LEASE", "$3")} WHERE ${heldBy}`,
    complete: `UPDATE ${jobs} SET state = 'done', done_at = clock_timestamp() WHERE ${heldBy}`,
    release: `UPDATE ${jobs} SET state = 'waiting', worker_id = NULL, lease_expires_at = NULL WHERE ${heldBy}`,
    counts: `SELECT
      count(*) FILTER (WHERE state = 'waiting' OR (state = 'held' AND lease_expires_at <= clock_timestamp()))::int
        AS waiting,
      count(*) FILTER (WHERE state = 'held' AND lease_expires_at > clock_timestamp())::int AS held,
      count(*) FILTER (WHERE state = 'done')::int AS done
    FROM ${jobs}`,
  };
}

/** FNV-1a, folded into a signed 32-bit integer as pg_advisory_xact_lock(int, int) takes it. */
function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h | 0;
}
