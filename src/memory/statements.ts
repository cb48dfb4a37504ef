import type Database from "better-sqlite3";

const caches = new WeakMap<Database.Database, Map<string, Database.Statement<unknown[], unknown>>>();

/**
 * A prepared statement, prepared once per connection and typed by its parameters and result row. Preparing costs
 * more than running most of these statements, and indexing runs them tens of thousands of times. SQLite
 * re-prepares a cached statement by itself when the schema changes (the vector table is dropped and recreated
 * when the embedder changes).
 */
export function statement<Params extends unknown[] = unknown[], Row = never>(
  db: Database.Database,
  sql: string,
): Database.Statement<Params, Row> {
  let cache = caches.get(db);
  if (!cache) {
    cache = new Map();
    caches.set(db, cache);
  }
  let prepared = cache.get(sql);
  if (!prepared) {
    prepared = db.prepare<unknown[], unknown>(sql);
    cache.set(sql, prepared);
  }
  // The cache is keyed by the SQL text, and one SQL text always comes with the same parameter and row types.
  return prepared as unknown as Database.Statement<Params, Row>;
}
