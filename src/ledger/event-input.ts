import { z } from "zod";
import {
  type LedgerEvent,
  ledgerEventInputContract,
  ledgerEventInputSchema,
  type ParsedLedgerEventInput,
  parseContract,
} from "../contracts/index.js";
import { canonicalJson, type Issue, issuesFromZod, newId, nowIso, ValidationError } from "../core/index.js";

/** A validated event ready to store, with a note of which fields the writer chose and which the ledger did. */
export interface PreparedEvent {
  event: LedgerEvent;
  /** The writer sent its own event_id, so a retry may hit an earlier copy (idempotency). */
  givenId: boolean;
  /** The writer sent its own ts; when it did not, a retry's fresh time must not count as a different body. */
  givenTs: boolean;
}

const ID_FIELDS = ["event_id", "garrison_id", "theater_id", "run_id", "order_id", "unit_id"] as const;

/** The contract's idString allows control characters; PostgreSQL text cannot hold NUL, and no id needs any. */
function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}

/**
 * Unknown input (an HTTP body) checked against the input contract before it is handed to a store: throws a
 * ValidationError naming every bad field by its path (`$.payload.attempt`).
 */
export function parseEventInput(value: unknown): ParsedLedgerEventInput {
  return parseContract(ledgerEventInputContract, value);
}

/** A batch as one array: zod's cost per call (context, result objects) is paid once per batch, not per event. */
const batchSchema = z.array(ledgerEventInputSchema);

/**
 * Validates events against the seed-000 input contract, normalises the typo spellings of their types and
 * fills event_id (ULID) and ts (now, one instant for the whole batch). Top-level keys the seed does not name
 * are kept and stored with the event, except `position`, which a read answers with and which would hide it.
 * Every problem of every event is reported at once; in a batch each path starts at the event's index
 * (`$[2].run_id`).
 */
export function prepareEvents(inputs: readonly unknown[], options: { batch: boolean }): PreparedEvent[] {
  if (inputs.length === 0) {
    throw new ValidationError(ledgerEventInputContract.kind, [
      { path: "$", message: "must hold at least one event", code: "too_small" },
    ]);
  }
  const now = nowIso();
  const issues: Issue[] = [];
  const prepared: PreparedEvent[] = [];
  const whole = batchSchema.safeParse(inputs);
  if (whole.success) {
    whole.data.forEach((value, index) => {
      prepareOne(value, at(options.batch, index), now, issues, prepared);
    });
  } else {
    // A batch that is refused anyway is checked event by event, so that every problem of every event is
    // reported, the contract's and the ledger's own alike.
    inputs.forEach((input, index) => {
      const result = ledgerEventInputSchema.safeParse(input);
      if (result.success) prepareOne(result.data, at(options.batch, index), now, issues, prepared);
      else issues.push(...issuesFromZod(result.error, options.batch ? [index] : []));
    });
  }
  if (issues.length > 0) throw new ValidationError(ledgerEventInputContract.kind, issues);
  return prepared;
}

/** Where an event's issues are reported: `$[2]` in a batch, `$` alone. */
function at(batch: boolean, index: number): string {
  return batch ? `$[${index}]` : "$";
}

/** One event that passed the contract, with the ledger's own rules checked: problems go to `issues`. */
function prepareOne(
  value: ParsedLedgerEventInput,
  at: string,
  now: string,
  issues: Issue[],
  prepared: PreparedEvent[],
): void {
  // Keys the seed does not name are kept with the event, exactly as written, after the base fields.
  const { event_id, ts, type, garrison_id, theater_id, run_id, order_id, unit_id, payload, ...extra } = value;
  const event: LedgerEvent = {
    event_id: event_id ?? newId(),
    ts: ts ?? now,
    type,
    garrison_id,
    theater_id,
    run_id,
    order_id: order_id ?? null,
    unit_id: unit_id ?? null,
    payload,
    ...extra,
  };
  if (Object.hasOwn(event, "position"))
    issues.push({
      path: `${at}.position`,
      message: "is the place the ledger stores the event at; leave it out",
      code: "custom",
    });
  for (const field of ID_FIELDS) {
    const id = event[field];
    if (id !== null && hasControlCharacter(id))
      issues.push({ path: `${at}.${field}`, message: "must not contain control characters", code: "custom" });
  }
  prepared.push({ event, givenId: event_id !== undefined, givenTs: ts !== undefined });
}

/**
 * Whether a re-posted event is the one already stored. Bodies are compared as canonical JSON, so key order and
 * number spelling do not matter; a ts the ledger filled in for the first copy is not held against a retry
 * that again left it out.
 */
export function isSameEvent(stored: LedgerEvent & { position?: number }, incoming: PreparedEvent): boolean {
  const { position: _position, ...event } = stored;
  const ts = incoming.givenTs ? incoming.event.ts : event.ts;
  return canonicalJson(event) === canonicalJson({ ...incoming.event, ts });
}
