// Spend per day as the usage page draws it: the user's days (their time zone), gaps filled with zero, and the
// scale a chart needs to show both the bars and the daily cap.

export interface DaySpend {
  day: string;
  usd: number;
  calls: number;
  refused: number;
}

/** The calendar day it is now in a time zone, as YYYY-MM-DD (the form the warden keys usage by). */
export function todayIn(timeZone: string, now: Date = new Date()): string {
  const parts = new Intl.DateTimeFormat("en-CA", {
    timeZone,
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
  }).formatToParts(now);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  return `${part("year")}-${part("month")}-${part("day")}`;
}

/** The `count` days ending with `lastDay`, oldest first. Calendar arithmetic only: no clock, no zone. */
export function daysEndingOn(lastDay: string, count: number): string[] {
  const end = Date.parse(`${lastDay}T00:00:00Z`);
  if (!Number.isFinite(end)) return [];
  return Array.from({ length: count }, (_, i) =>
    new Date(end - (count - 1 - i) * 86_400_000).toISOString().slice(0, 10),
  );
}

/** One entry per day of `days`, with the spend the report has for it and zero for days without calls. */
export function fillDays(
  days: readonly string[],
  rows: readonly { key: string; cost_usd: number; calls: number; refused: number }[],
): DaySpend[] {
  const byDay = new Map(rows.map((r) => [r.key, r]));
  return days.map((day) => {
    const row = byDay.get(day);
    return { day, usd: row?.cost_usd ?? 0, calls: row?.calls ?? 0, refused: row?.refused ?? 0 };
  });
}

/**
 * The top of the chart's scale: above the highest bar and the cap, rounded up to a figure people read
 * (1, 2 or 5 times a power of ten), never zero so an empty month still draws.
 */
export function scaleTop(values: readonly number[], cap: number | undefined): number {
  const highest = Math.max(0, ...values, cap ?? 0);
  if (highest <= 0) return 0.01;
  const power = 10 ** Math.floor(Math.log10(highest));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * power >= highest * 1.05) return step * power;
  return 10 * power;
}

/** A scale mark in dollars: as many digits as it has (up to three significant), at least cents. */
export function usdMark(value: number): string {
  if (value === 0) return "$0.00";
  const text = String(Number(value.toPrecision(3)));
  const decimals = text.split(".")[1]?.length ?? 0;
  return `$${value.toFixed(Math.max(2, decimals))}`;
}

/** Dollars as people read a bill: two decimals, more only for fractions of a cent. */
export function usd(value: number): string {
  if (value === 0) return "$0.00";
  const digits = Math.abs(value) >= 0.01 ? 2 : Math.min(6, 1 - Math.floor(Math.log10(Math.abs(value))));
  return `$${value.toFixed(digits)}`;
}
