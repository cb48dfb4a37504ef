import { isTimeZone } from "../../../contracts/index.js";
import { type IcalProperty, property } from "./ical-text.js";
import { instantOf, wallOf } from "./zoned-time.js";

// DATE and DATE-TIME values (RFC 5545 §3.3.4–3.3.5) with the zone they are in: UTC (a trailing Z), a TZID,
// floating (neither; read as UTC here, the warden has no viewer's zone) or a whole day.

export interface EventTime {
  /** An IANA zone, "UTC", or undefined for floating times and whole days. */
  zone: string | undefined;
  allDay: boolean;
  /** The clock's fields as Date.UTC milliseconds. */
  wall: number;
  utc: number;
}

/** Reads a DTSTART, DTEND, RECURRENCE-ID or EXDATE value (one of a list: `value` picks it). */
export function readTime(p: IcalProperty, value = p.value): EventTime {
  const m = /^(\d{4})(\d{2})(\d{2})(?:T(\d{2})(\d{2})(\d{2})(Z)?)?$/.exec(value.trim());
  if (!m) throw new Error(`${p.name} ${value} is not an iCalendar date or date-time`);
  const wall = Date.UTC(
    Number(m[1]),
    Number(m[2]) - 1,
    Number(m[3]),
    Number(m[4] ?? 0),
    Number(m[5] ?? 0),
    Number(m[6] ?? 0),
  );
  if (m[4] === undefined) return { zone: undefined, allDay: true, wall, utc: wall };
  if (m[7]) return { zone: "UTC", allDay: false, wall, utc: wall };
  const tzid = p.params.TZID?.replace(/^\/[^/]+\/[^/]+\//, "");
  // A TZID that is no IANA name (Outlook's "W. Europe Standard Time") is read as floating.
  if (tzid && isTimeZone(tzid)) return { zone: tzid, allDay: false, wall, utc: instantOf(tzid, wall) };
  return { zone: undefined, allDay: false, wall, utc: wall };
}

/** The same kind of time at another instant (an occurrence of a rule, an event moved). */
export function timeAt(like: EventTime, utc: number): EventTime {
  if (like.zone === undefined) return { ...like, wall: utc, utc };
  return { ...like, wall: wallOf(like.zone, utc), utc };
}

/** A DATE-TIME property in the zone: TZID=… for an IANA zone, a Z for UTC. */
export function timeProperty(name: string, zone: string, utc: number): IcalProperty {
  if (zone === "UTC") return property(name, `${stamp(utc)}Z`);
  return property(name, stamp(wallOf(zone, utc)), { TZID: zone });
}

/** `YYYYMMDDTHHMMSS` of a Date.UTC value. */
export function stamp(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace(/[-:]/g, "");
}

/** A DURATION value (§3.3.6) in milliseconds: P1D, PT1H30M, P2W, -PT15M. */
export function readDuration(value: string): number {
  const m = /^([+-])?P(?:(\d+)W)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/.exec(value.trim());
  if (!m) throw new Error(`DURATION ${value} is not an iCalendar duration`);
  const [w, d, h, mi, s] = [m[2], m[3], m[4], m[5], m[6]].map((v) => Number(v ?? 0));
  const ms = ((((w ?? 0) * 7 + (d ?? 0)) * 24 + (h ?? 0)) * 60 + (mi ?? 0)) * 60_000 + (s ?? 0) * 1000;
  return m[1] === "-" ? -ms : ms;
}
