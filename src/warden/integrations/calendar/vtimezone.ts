import { type IcalComponent, property } from "./ical-text.js";
import { stamp } from "./ical-time.js";
import { offsetMinutes } from "./zoned-time.js";

// RFC 5545 §3.6.5 wants a VTIMEZONE for every TZID an object uses, and servers read times through it (Radicale
// cannot resolve a bare IANA name). Built from the runtime's zone database: each change of offset from the year
// before the event to ten years after it, as one observance each, which every reader understands.

const STEP = 7 * 86_400_000;
const YEARS_AFTER = 10;

/** A VTIMEZONE for `zone` covering the years around `aroundUtc`. */
export function vtimezoneFor(zone: string, aroundUtc: number): IcalComponent {
  const year = new Date(aroundUtc).getUTCFullYear();
  const from = Date.UTC(year - 1, 0, 1);
  const to = Date.UTC(year + YEARS_AFTER + 1, 0, 1);
  const observances: IcalComponent[] = [];
  const initial = offsetMinutes(zone, from);
  let before = initial;
  // Stepped a week at a time, then bisected to the minute: no zone changes its offset twice within a week.
  for (let t = from; t < to; t += STEP) {
    const next = offsetMinutes(zone, t + STEP);
    if (next === before) continue;
    const change = findChange(zone, t, t + STEP, before);
    observances.push(
      observance(next > before ? "DAYLIGHT" : "STANDARD", change + before * 60_000, before, next),
    );
    before = next;
  }
  // The offset in force before the window's first change (or throughout, in a zone without changes like
  // Asia/Tokyo), from 1970 on.
  const kind = observances[0]?.name === "STANDARD" ? "DAYLIGHT" : "STANDARD";
  observances.unshift(observance(kind, Date.UTC(1970, 0, 1), initial, initial));
  return { name: "VTIMEZONE", properties: [property("TZID", zone)], components: observances };
}

/** The first millisecond (to the minute) of the new offset between lo and hi. */
function findChange(zone: string, lo: number, hi: number, before: number): number {
  let a = lo;
  let b = hi;
  while (b - a > 60_000) {
    const mid = a + Math.floor((b - a) / 2 / 60_000) * 60_000;
    if (offsetMinutes(zone, mid) === before) a = mid;
    else b = mid;
  }
  return b;
}

function observance(kind: string, startWall: number, from: number, to: number): IcalComponent {
  return {
    name: kind,
    properties: [
      property("DTSTART", stamp(startWall)),
      property("TZOFFSETFROM", offsetText(from)),
      property("TZOFFSETTO", offsetText(to)),
    ],
    components: [],
  };
}

function offsetText(minutes: number): string {
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? "-" : "+"}${String(Math.floor(abs / 60)).padStart(2, "0")}${String(abs % 60).padStart(2, "0")}`;
}
