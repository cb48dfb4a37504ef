import type pg from "pg";
import { LOCK_CLASS, type PostgresNames } from "./postgres-schema.js";

/**
 * Runs `work` in a transaction that holds the ledger's advisory lock from the start. BEGIN and the lock go in
 * one round trip (the simple query protocol allows several statements; both keys are integers we made).
 */
export async function inLedgerTransaction<T>(
  pool: pg.Pool,
  names: PostgresNames,
  work: (client: pg.PoolClient) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${LOCK_CLASS}, ${names.lockKey})`);
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {
      broken = true;
    });
    throw error;
  } finally {
    client.release(broken);
  }
}

/**
 * Errors after which an append made as one statement was not applied and the careful way will decide it:
 * unique_violation (a key it took to be new is stored already) and deadlock_detected (PostgreSQL chose it to
 * break a wait cycle with another session's lock order, such as an older ledger's DDL on open).
 */
export function isRetryableByTransaction(error: unknown): boolean {
  if (typeof error !== "object" || error === null || !("code" in error)) return false;
  return error.code === "23505" || error.code === "40P01";
}
