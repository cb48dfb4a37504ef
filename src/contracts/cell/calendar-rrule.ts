// The recurrence rules the calendar tools write and expand: a subset of RFC 5545 §3.3.10 that covers what people
// ask for ("every weekday", "every other Tuesday until June", "the first Monday of each month, 6 times", "every
// year on her birthday"). FREQ DAILY, WEEKLY, MONTHLY or YEARLY (on DTSTART's month and day); INTERVAL; COUNT or UNTIL (never both, §3.3.10); BYDAY (with an ordinal only for
// MONTHLY, §3.3.10 "BYDAY … numeric value … MONTHLY"). Anything else is refused with the part and the rule.

export const RRULE_FREQS = ["DAILY", "WEEKLY", "MONTHLY", "YEARLY"] as const;
export type RruleFreq = (typeof RRULE_FREQS)[number];
export const WEEKDAYS = ["MO", "TU", "WE", "TH", "FR", "SA", "SU"] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface RruleDay {
  day: Weekday;
  /** MONTHLY only: the nth (1–5) or nth-from-last (-1…-5) such weekday of the month. */
  nth?: number;
}

export interface Rrule {
  freq: RruleFreq;
  interval: number;
  count?: number;
  /** UNTIL as written: `YYYYMMDD` or `YYYYMMDDTHHMMSSZ` (RFC 5545: UTC when DTSTART has a time zone). */
  until?: string;
  byDay?: RruleDay[];
}

const DAY_NAMES: Record<Weekday, string> = {
  MO: "Monday",
  TU: "Tuesday",
  WE: "Wednesday",
  TH: "Thursday",
  FR: "Friday",
  SA: "Saturday",
  SU: "Sunday",
};

/** Reads an RRULE value (with or without the `RRULE:` prefix); throws an Error naming the part and the rule. */
export function parseRrule(text: string): Rrule {
  const body = text.trim().replace(/^RRULE:/i, "");
  const parts = new Map<string, string>();
  for (const part of body.split(";")) {
    const [key, value, extra] = part.split("=");
    if (!key || value === undefined || extra !== undefined || value === "")
      throw new Error(`${part || "(empty)"}: each part must be NAME=VALUE, separated by ;`);
    const name = key.toUpperCase();
    if (parts.has(name)) throw new Error(`${name}: must be given once`);
    parts.set(name, value.toUpperCase());
  }
  const known = new Set(["FREQ", "INTERVAL", "COUNT", "UNTIL", "BYDAY", "WKST"]);
  for (const name of parts.keys())
    if (!known.has(name))
      throw new Error(`${name}: not supported; use FREQ, INTERVAL, COUNT or UNTIL, BYDAY`);
  const freq = parts.get("FREQ");
  if (!freq) throw new Error("FREQ: is required");
  if (!(RRULE_FREQS as readonly string[]).includes(freq))
    throw new Error(`FREQ: must be one of ${RRULE_FREQS.join(", ")}`);
  const rule: Rrule = { freq: freq as RruleFreq, interval: 1 };
  const interval = parts.get("INTERVAL");
  if (interval !== undefined) rule.interval = positive("INTERVAL", interval, 1000);
  const count = parts.get("COUNT");
  const until = parts.get("UNTIL");
  if (count !== undefined && until !== undefined) throw new Error("COUNT: must not be given with UNTIL");
  if (count !== undefined) rule.count = positive("COUNT", count, 1000);
  if (until !== undefined) {
    if (!/^\d{8}(T\d{6}Z)?$/.test(until))
      throw new Error("UNTIL: must be YYYYMMDD or YYYYMMDDTHHMMSSZ (UTC)");
    rule.until = until;
  }
  const byDay = parts.get("BYDAY");
  if (byDay !== undefined) {
    if (rule.freq === "DAILY" || rule.freq === "YEARLY")
      throw new Error("BYDAY: only with FREQ=WEEKLY or FREQ=MONTHLY");
    rule.byDay = byDay.split(",").map((entry) => weekdayOf(entry, rule.freq));
  }
  return rule;
}

function positive(name: string, value: string, max: number): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || Number(value) > max)
    throw new Error(`${name}: must be a whole number from 1 to ${max}`);
  return Number(value);
}

function weekdayOf(entry: string, freq: RruleFreq): RruleDay {
  const match = /^([+-]?\d)?(MO|TU|WE|TH|FR|SA|SU)$/.exec(entry);
  if (!match)
    throw new Error(`BYDAY: ${entry} must be a weekday (MO…SU), for MONTHLY optionally with 1–5 or -1…-5`);
  const day = match[2] as Weekday;
  if (match[1] === undefined) return { day };
  const nth = Number(match[1]);
  if (freq !== "MONTHLY") throw new Error(`BYDAY: ${entry} has an ordinal, allowed only with FREQ=MONTHLY`);
  if (nth === 0) throw new Error(`BYDAY: ${entry} must not use 0 as the ordinal`);
  return { day, nth };
}

/** The rule as RFC 5545 text (what is stored on the server). */
export function formatRrule(rule: Rrule): string {
  const parts = [`FREQ=${rule.freq}`];
  if (rule.interval !== 1) parts.push(`INTERVAL=${rule.interval}`);
  if (rule.byDay) parts.push(`BYDAY=${rule.byDay.map((d) => `${d.nth ?? ""}${d.day}`).join(",")}`);
  if (rule.count !== undefined) parts.push(`COUNT=${rule.count}`);
  if (rule.until !== undefined) parts.push(`UNTIL=${rule.until}`);
  return parts.join(";");
}

/** The rule in words, for the model and the person: "every 2 weeks on Monday, Wednesday, 10 times". */
export function describeRrule(rule: Rrule): string {
  const unit = { DAILY: "day", WEEKLY: "week", MONTHLY: "month", YEARLY: "year" }[rule.freq];
  const every = rule.interval === 1 ? `every ${unit}` : `every ${rule.interval} ${unit}s`;
  const days = rule.byDay?.map((d) =>
    d.nth === undefined ? DAY_NAMES[d.day] : `${ordinal(d.nth)} ${DAY_NAMES[d.day]}`,
  );
  const on = days ? ` on ${days.join(", ")}` : "";
  const end =
    rule.count !== undefined
      ? `, ${rule.count} time${rule.count === 1 ? "" : "s"}`
      : rule.until !== undefined
        ? `, until ${rule.until.slice(0, 4)}-${rule.until.slice(4, 6)}-${rule.until.slice(6, 8)}`
        : "";
  return `${every}${on}${end}`;
}

function ordinal(nth: number): string {
  if (nth === -1) return "last";
  if (nth < 0) return `${ordinal(-nth)}-to-last`;
  return ["", "first", "second", "third", "fourth", "fifth"][nth] ?? `${nth}th`;
}
