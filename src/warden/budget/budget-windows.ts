import type { Period } from "./budget-party.js";

const formats = new Map<string, Intl.DateTimeFormat>();

/** The calendar date at `at` on a wall clock in `timeZone`: `2025-03-31`. */
export function localDay(at: number, timeZone: string): string {
  let format = formats.get(timeZone);
  if (!format) {
    // en-CA writes dates as YYYY-MM-DD; the parts are read by type anyway, so the locale only fixes digits.
    format = new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
    });
    formats.set(timeZone, format);
  }
  const parts = format.formatToParts(at);
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  return `${get("year")}-${get("month")}-${get("day")}`;
}

/**
 * The window a period's spend is counted in at `at`: `day:2025-03-31`, `month:2025-03`, `total`. Days and months
 * turn over at midnight on the user's wall clock, not UTC's, so "today" is the day the user lives in.
 */
export function windowKey(period: Period, at: number, timeZone: string): string {
  if (period === "total") return "total";
  const day = localDay(at, timeZone);
  return period === "day" ? `day:${day}` : `month:${day.slice(0, 7)}`;
}

/** When a window's cap renews, in words for a refusal message. */
export function describeRenewal(period: Period, timeZone: string): string {
  if (period === "day") return `at midnight (${timeZone})`;
  if (period === "month") return `on the first of next month (${timeZone})`;
  return "never: it is a lifetime cap";
}

/** "daily", "monthly", "lifetime". */
export function periodAdjective(period: Period): string {
  return period === "day" ? "daily" : period === "month" ? "monthly" : "lifetime";
}
