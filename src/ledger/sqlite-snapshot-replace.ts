import type Database from "better-sqlite3";
import type { EncodedSnapshots } from "./snapshot-cache.js";

/**
 * Makes the stored snapshots exactly the rebuilt ones, writing only what differs. A rebuild usually finds
 * every snapshot as it was stored; deleting and rewriting them all made it write the whole projection (15,000
 * snapshots of a 100,000-event ledger, several MB) to the WAL and again at the checkpoint. Stored texts are
 * compared as they are: a row that is not two strings (a damaged file) is simply rewritten or deleted.
 */
export function replaceSnapshots(db: Database.Database, rebuilt: EncodedSnapshots): void {
  replaceTable(
    db,
    { table: "run_snapshots", key: "run_id" },
    rebuilt.runs.map(({ snapshot, text }) => [snapshot.run_id, text]),
  );
  replaceTable(
    db,
    { table: "order_snapshots", key: "order_id" },
    rebuilt.orders.map(({ snapshot, text }) => [snapshot.order_id, text]),
  );
}

function replaceTable(
  db: Database.Database,
  { table, key }: { table: string; key: string },
  rebuilt: ReadonlyArray<readonly [string, string]>,
): void {
  const stored = new Map<unknown, unknown>();
  for (const row of db.prepare(`SELECT ${key}, snapshot FROM ${table}`).raw().iterate()) {
    if (Array.isArray(row)) stored.set(row[0], row[1]);
  }
  const upsert = db.prepare(
    `INSERT INTO ${table} (${key}, snapshot) VALUES (?, ?) ON CONFLICT (${key}) DO UPDATE SET snapshot = excluded.snapshot`,
  );
  for (const [id, text] of rebuilt) {
    if (stored.get(id) !== text) upsert.run(id, text);
    stored.delete(id);
  }
  const remove = db.prepare(`DELETE FROM ${table} WHERE ${key} = ?`);
  for (const id of stored.keys()) remove.run(id);
}
