import type { EventQuery } from "./event-store.js";

export const DEFAULT_READ_LIMIT = 1000;

/**
 * The WHERE/ORDER/LIMIT tail of a read, for either store's placeholder style (`?` or `$1`). Every filter has
 * an index that ends in position, so a filtered read walks only its own stream.
 */
export function eventQuerySql(
  query: EventQuery,
  placeholder: (index: number) => string,
): { sql: string; params: Array<string | number> } {
  const params: Array<string | number> = [];
  const next = (value: string | number) => {
    params.push(value);
    return placeholder(params.length);
  };
  const where = [`position > ${next(query.after ?? 0)}`];
  if (query.through !== undefined) where.push(`position <= ${next(query.through)}`);
  if (query.runId !== undefined) where.push(`run_id = ${next(query.runId)}`);
  if (query.orderId !== undefined) where.push(`order_id = ${next(query.orderId)}`);
  if (query.types !== undefined && query.types.length > 0)
    where.push(`type IN (${query.types.map((t) => next(t)).join(", ")})`);
  const limit = next(query.limit ?? DEFAULT_READ_LIMIT);
  return { sql: `WHERE ${where.join(" AND ")} ORDER BY position LIMIT ${limit}`, params };
}
