// Wall-clock time in an IANA zone, from the runtime's own time zone database (Intl): no library ships one
// smaller. A "wall" time is held as the milliseconds Date.UTC gives for the clock's fields, so that calendar
// arithmetic (the next Tuesday at 10:00) is done on the clock the person sees and only then turned into an
// instant: a weekly 10:00 in Paris stays 10:00 across the change to summer time.

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(zone, f);
  }
  return f;
}

/** The zone's offset from UTC at an instant, in minutes (Paris in winter: 60). */
export function offsetMinutes(zone: string, utcMs: number): number {
  if (zone === "UTC") return 0;
  const fields: Record<string, number> = {};
  for (const part of formatter(zone).formatToParts(new Date(utcMs)))
    if (part.type !== "literal") fields[part.type] = Number(part.value);
  const wall = Date.UTC(
    fields.year ?? 1970,
    (fields.month ?? 1) - 1,
    fields.day ?? 1,
    fields.hour ?? 0,
    fields.minute ?? 0,
    fields.second ?? 0,
  );
  return Math.round((wall - Math.floor(utcMs / 1000) * 1000) / 60_000);
}

/** The wall time the zone's clocks show at an instant. */
export function wallOf(zone: string, utcMs: number): number {
  return utcMs + offsetMinutes(zone, utcMs) * 60_000;
}

/**
 * The instant a wall time names in a zone (RFC 5545 §3.3.5): a time skipped by a change to summer time is taken
 * with the offset before the change (02:30 becomes 03:30), a time that occurs twice is its first occurrence.
 */
export function instantOf(zone: string, wallMs: number): number {
  const around = [offsetMinutes(zone, wallMs - 14 * 3_600_000), offsetMinutes(zone, wallMs + 14 * 3_600_000)];
  const valid = around.map((o) => wallMs - o * 60_000).filter((u) => wallOf(zone, u) === wallMs);
  if (valid.length > 0) return Math.min(...valid);
  return wallMs - (around[0] ?? 0) * 60_000;
}

/** An instant as ISO 8601 with the zone's offset at that moment: 2026-12-01T10:00:00+01:00. */
export function isoInZone(zone: string, utcMs: number): string {
  const offset = offsetMinutes(zone, utcMs);
  const wall = new Date(utcMs + offset * 60_000).toISOString().slice(0, 19);
  if (offset === 0) return `${wall}Z`;
  const abs = Math.abs(offset);
  const sign = offset < 0 ? "-" : "+";
  return `${wall}${sign}${String(Math.floor(abs / 60)).padStart(2, "0")}:${String(abs % 60).padStart(2, "0")}`;
}

/** A wall time read from ISO text without an offset (2026-12-01T09:30 or …:00). */
export function wallFromIso(text: string): number {
  const [date = "", time = "00:00:00"] = text.split("T");
  const [y, mo, d] = date.split("-").map(Number);
  const [h, mi, s] = time.split(":").map(Number);
  return Date.UTC(y ?? 1970, (mo ?? 1) - 1, d ?? 1, h ?? 0, mi ?? 0, s ?? 0);
}

/**
 * The instant of a time the model wrote for an event in `zone`: with an offset or Z it is that instant; without,
 * it is the wall time in the zone.
 */
export function instantOfInput(zone: string, text: string): number {
  return /(Z|[+-]\d{2}:\d{2})$/.test(text) ? Date.parse(text) : instantOf(zone, wallFromIso(text));
}
