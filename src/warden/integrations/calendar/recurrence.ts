import { type Rrule, type RruleDay, WEEKDAYS } from "../../../contracts/index.js";

// The occurrences of a recurrence rule (the subset calendar-rrule.ts reads) that overlap a range. Radicale and
// most servers do not expand recurrences for a client (CalDAV's `expand` is optional, RFC 4791 §9.6.5), so the
// warden does. Dates are stepped on the wall clock, then turned into instants: RFC 5545 §3.3.10 repeats the
// local time. DTSTART always counts as the first occurrence (§3.8.5.3).

const DAY = 86_400_000;
/** Periods stepped through at most, so a rule that never matches (5th Monday every 12 months…) still ends. */
const MAX_PERIODS = 20_000;

export interface ExpandInput {
  rule: Rrule;
  /** DTSTART as a wall time, and how a wall time becomes an instant in the event's zone. */
  startWall: number;
  toInstant: (wall: number) => number;
  durationMs: number;
  /** Instants (of occurrence starts) that EXDATE or a RECURRENCE-ID override removes. */
  skip: ReadonlySet<number>;
  from: number;
  to: number;
  max: number;
}

/** Start instants of the occurrences overlapping [from, to), in order, at most `max`. */
export function expandRule(input: ExpandInput): number[] {
  const { rule, startWall, toInstant } = input;
  const until = untilInstant(rule, toInstant);
  const found: number[] = [];
  let counted = 0;
  const take = (wall: number): boolean => {
    const start = toInstant(wall);
    if (until !== undefined && start > until) return false;
    if (rule.count !== undefined && counted >= rule.count) return false;
    counted++;
    if (start >= input.to) return false;
    if (start + input.durationMs > input.from && !input.skip.has(start)) found.push(start);
    return found.length < input.max;
  };
  if (!take(startWall)) return found;
  const timeOfDay = ((startWall % DAY) + DAY) % DAY;
  for (let period = firstPeriod(input), steps = 0; steps < MAX_PERIODS; period += rule.interval, steps++) {
    for (const day of candidates(rule, startWall, period)) {
      const wall = day + timeOfDay;
      if (wall <= startWall) continue;
      if (!take(wall)) return found;
    }
  }
  return found;
}

/**
 * Without COUNT nothing before the range needs counting, so stepping starts a period or two before it: a daily
 * rule begun years ago costs the range's days, not every day since.
 */
function firstPeriod(input: ExpandInput): number {
  const { rule, startWall } = input;
  if (rule.count !== undefined) return 0;
  const ahead = input.from - 2 * DAY - startWall;
  if (ahead <= 0) return 0;
  const span =
    rule.freq === "DAILY"
      ? Math.floor(ahead / DAY)
      : rule.freq === "WEEKLY"
        ? Math.floor(ahead / (7 * DAY))
        : rule.freq === "MONTHLY"
          ? Math.floor(ahead / (31 * DAY))
          : Math.floor(ahead / (366 * DAY));
  return Math.max(0, span - (span % rule.interval) - rule.interval);
}

function untilInstant(rule: Rrule, toInstant: (wall: number) => number): number | undefined {
  if (rule.until === undefined) return undefined;
  const u = rule.until;
  const date = Date.UTC(Number(u.slice(0, 4)), Number(u.slice(4, 6)) - 1, Number(u.slice(6, 8)));
  if (u.length === 8) return toInstant(date + DAY) - 1; // a date: the whole day, on the event's clock
  return (
    date +
    Number(u.slice(9, 11)) * 3_600_000 +
    Number(u.slice(11, 13)) * 60_000 +
    Number(u.slice(13, 15)) * 1000
  );
}

/** The days (wall midnights) of the `period`-th day, week, month or year from DTSTART's, in order. */
function candidates(rule: Rrule, startWall: number, period: number): number[] {
  const startDay = startWall - (((startWall % DAY) + DAY) % DAY);
  if (rule.freq === "DAILY") return [startDay + period * DAY];
  if (rule.freq === "WEEKLY") {
    // Weeks start on Monday (WKST default, §3.3.10).
    const monday = startDay - weekdayIndex(startDay) * DAY + period * 7 * DAY;
    const days = rule.byDay?.map((d) => WEEKDAYS.indexOf(d.day)) ?? [weekdayIndex(startDay)];
    return [...new Set(days)].sort((a, b) => a - b).map((i) => monday + i * DAY);
  }
  const start = new Date(startDay);
  if (rule.freq === "YEARLY") {
    // DTSTART's month and day; a year without that day (29 February) is skipped, not moved (§3.3.10).
    const day = Date.UTC(start.getUTCFullYear() + period, start.getUTCMonth(), start.getUTCDate());
    return new Date(day).getUTCDate() === start.getUTCDate() ? [day] : [];
  }
  const year = start.getUTCFullYear();
  const month = start.getUTCMonth() + period;
  const first = Date.UTC(year, month, 1);
  const length = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  if (!rule.byDay) {
    // A day the month does not have (the 31st in April) is skipped, not moved (§3.3.10).
    const day = start.getUTCDate();
    return day <= length ? [first + (day - 1) * DAY] : [];
  }
  const days = rule.byDay.flatMap((d) => monthDays(d, first, length));
  return [...new Set(days)].sort((a, b) => a - b);
}

function monthDays(entry: RruleDay, first: number, length: number): number[] {
  const want = WEEKDAYS.indexOf(entry.day);
  const offset = (want - weekdayIndex(first) + 7) % 7;
  const all: number[] = [];
  for (let d = offset; d < length; d += 7) all.push(first + d * DAY);
  if (entry.nth === undefined) return all;
  const pick = entry.nth > 0 ? all[entry.nth - 1] : all[all.length + entry.nth];
  return pick === undefined ? [] : [pick];
}

/** Monday 0 … Sunday 6. */
function weekdayIndex(dayMs: number): number {
  return (new Date(dayMs).getUTCDay() + 6) % 7;
}
