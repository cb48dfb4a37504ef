import { z } from "zod";
import {
  idString,
  LEDGER_EVENT_TYPES,
  type LedgerEventType,
  normalizeEventType,
} from "../contracts/index.js";
import { issuesFromZod, ValidationError } from "../core/index.js";
import type { StreamExpectation } from "./event-store.js";

/**
 * Query strings of the ledger's HTTP routes. Seed 000 does not specify them (it has no read endpoint), so
 * they are defined here; paths in errors are reported as `query.<name>`.
 */
const wholeNumber = z
  .string()
  .regex(/^\d{1,15}$/, "must be a whole number")
  .transform(Number);

const eventTypes = z.union([z.string(), z.array(z.string())]).transform((value, ctx): LedgerEventType[] => {
  const names = (Array.isArray(value) ? value : [value]).flatMap((v) => v.split(","));
  const types: LedgerEventType[] = [];
  for (const name of names) {
    const type = normalizeEventType(name.trim());
    if (type) types.push(type);
    else
      ctx.addIssue({
        code: "custom",
        message: `must list known event types: ${LEDGER_EVENT_TYPES.join(", ")}`,
      });
  }
  return types;
});

const flag = z
  .enum(["true", "false", "1", "0"], { error: "must be true or false" })
  .transform((v) => v === "true" || v === "1");

export const readQuerySchema = z.strictObject({
  after: wholeNumber.optional(),
  limit: wholeNumber
    .pipe(z.number().min(1, "must be 1 or more").max(1000, "must be at most 1000"))
    .optional(),
  run_id: idString.optional(),
  order_id: idString.optional(),
  type: eventTypes.optional(),
  follow: flag.optional(),
});

export const appendQuerySchema = z.strictObject({
  expect_run_version: wholeNumber.optional(),
  expect_order_version: wholeNumber.optional(),
});

export type ReadQuery = z.output<typeof readQuerySchema>;

export function parseQuery<S extends z.ZodType>(schema: S, query: unknown, name: string): z.output<S> {
  const result = schema.safeParse(query ?? {});
  if (result.success) return result.data;
  const issues = issuesFromZod(result.error).map((i) => ({ ...i, path: i.path.replace(/^\$/, "query") }));
  throw new ValidationError(name, issues);
}

/**
 * Expected versions for POST /events and /events/batch: `expect_run_version` and `expect_order_version` apply
 * to the run and order of the (first) event, which is the stream a worker's batch is about.
 */
export function expectationsFor(query: unknown, firstEvent: unknown): StreamExpectation[] {
  const q = parseQuery(appendQuerySchema, query, "ledger-append-query");
  const ids = (typeof firstEvent === "object" && firstEvent !== null ? firstEvent : {}) as Record<
    string,
    unknown
  >;
  const expect: StreamExpectation[] = [];
  const add = (kind: "run" | "order", version: number | undefined) => {
    if (version === undefined) return;
    const id = ids[`${kind}_id`];
    if (typeof id !== "string")
      throw new ValidationError("ledger-append-query", [
        { path: `query.expect_${kind}_version`, message: `needs an event with a ${kind}_id`, code: "custom" },
      ]);
    expect.push({ kind, id, version });
  };
  add("run", q.expect_run_version);
  add("order", q.expect_order_version);
  return expect;
}
