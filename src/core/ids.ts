import { decodeTime, isValid, monotonicFactory } from "ulid";

const nextUlid = monotonicFactory();

/** A new ULID; ids made in one process are strictly increasing even within one millisecond. */
export function newId(): string {
  return nextUlid();
}

export function isUlid(value: string): boolean {
  return isValid(value);
}

/** Milliseconds since the epoch encoded in a ULID. */
export function ulidTime(id: string): number {
  return decodeTime(id);
}

/** The current time as ISO-8601 UTC with a `Z` suffix, the form every IronClaw record uses. */
export function nowIso(): string {
  return new Date().toISOString();
}
