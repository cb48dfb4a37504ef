import {
  CALENDAR_DESCRIPTION_CHARS,
  type CalendarEvent,
  describeRrule,
  parseRrule,
  type Rrule,
} from "../../../contracts/index.js";
import { type IcalComponent, prop, unescapeText } from "./ical-text.js";
import { type EventTime, readDuration, readTime, timeAt } from "./ical-time.js";
import { expandRule } from "./recurrence.js";
import { instantOf, isoInZone } from "./zoned-time.js";

// One calendar object's events as the tools show them: each occurrence in a range, with its wall time in the
// event's own zone. A recurring event's moved or cancelled occurrences (RECURRENCE-ID overrides, EXDATE) replace
// or remove the rule's.

export interface Occurrence {
  event: CalendarEvent;
  startUtc: number;
}

/** The events of a VCALENDAR overlapping [from, to), at most `max`. */
export function occurrencesIn(
  calendar: IcalComponent,
  calendarName: string,
  range: { from: number; to: number; max: number },
): Occurrence[] {
  const events = calendar.components.filter((c) => c.name === "VEVENT");
  const master = events.find((e) => !prop(e, "RECURRENCE-ID"));
  const overrides = events.filter((e) => prop(e, "RECURRENCE-ID"));
  const out: Occurrence[] = [];
  for (const override of overrides) {
    const { start, end } = timesOf(override);
    if (start.utc < range.to && end.utc > range.from)
      out.push({
        event: view(override, calendarName, start, end.utc - start.utc, master),
        startUtc: start.utc,
      });
  }
  if (!master) return out;
  const { start, end } = timesOf(master);
  const duration = end.utc - start.utc;
  const rruleText = prop(master, "RRULE")?.value;
  const rule = rruleText ? safeRule(rruleText) : undefined;
  if (rruleText && rule) {
    const skip = new Set([
      ...overrides.flatMap((o) => {
        const id = prop(o, "RECURRENCE-ID");
        return id ? [readTime(id).utc] : [];
      }),
      ...exdates(master, start),
    ]);
    const zone = start.zone;
    const starts = expandRule({
      rule,
      startWall: start.wall,
      toInstant: (wall) => (zone === undefined ? wall : instantOf(zone, wall)),
      durationMs: duration,
      skip,
      from: range.from,
      to: range.to,
      max: range.max,
    });
    for (const utc of starts)
      out.push({ event: view(master, calendarName, timeAt(start, utc), duration), startUtc: utc });
  } else if (start.utc < range.to && end.utc > range.from)
    out.push({ event: view(master, calendarName, start, duration), startUtc: start.utc });
  return out;
}

function safeRule(text: string): Rrule | undefined {
  try {
    return parseRrule(text);
  } catch {
    return undefined;
  }
}

/** The event (a recurring one's series) as written: its first occurrence and its rule. */
export function eventView(calendar: IcalComponent, calendarName: string): CalendarEvent {
  const master = calendar.components.find((c) => c.name === "VEVENT" && !prop(c, "RECURRENCE-ID"));
  if (!master) throw new Error("the calendar object holds no event");
  const { start, end } = timesOf(master);
  return view(master, calendarName, start, end.utc - start.utc);
}

/** DTSTART and the end (DTEND, else DTSTART + DURATION, else a day for a date and nothing for a time, §3.6.1). */
export function timesOf(event: IcalComponent): { start: EventTime; end: EventTime } {
  const dtstart = prop(event, "DTSTART");
  if (!dtstart) throw new Error("an event has no DTSTART");
  const start = readTime(dtstart);
  const dtend = prop(event, "DTEND");
  if (dtend) return { start, end: readTime(dtend) };
  const duration = prop(event, "DURATION");
  const length = duration ? readDuration(duration.value) : start.allDay ? 86_400_000 : 0;
  return { start, end: timeAt(start, start.utc + length) };
}

function exdates(master: IcalComponent, start: EventTime): number[] {
  return master.properties
    .filter((p) => p.name === "EXDATE")
    .flatMap((p) =>
      p.value
        .split(",")
        .map((v) => readTime({ ...p, params: { TZID: start.zone ?? "", ...p.params } }, v).utc),
    );
}

function view(
  event: IcalComponent,
  calendarName: string,
  start: EventTime,
  durationMs: number,
  master?: IcalComponent,
): CalendarEvent {
  const text = (name: string) => {
    const p = prop(event, name) ?? (master ? prop(master, name) : undefined);
    return p ? unescapeText(p.value) : undefined;
  };
  const rrule = prop(master ?? event, "RRULE")?.value;
  const rule = rrule ? safeRule(rrule) : undefined;
  const description = text("DESCRIPTION");
  const location = text("LOCATION");
  return {
    uid: text("UID") ?? "",
    calendar: calendarName,
    summary: text("SUMMARY") ?? "(no title)",
    start: timeText(start, start.utc),
    end: timeText(start, start.utc + durationMs),
    time_zone: start.allDay ? "all-day" : (start.zone ?? "floating"),
    all_day: start.allDay,
    ...(rrule
      ? { recurrence: rule ? describeRrule(rule) : `repeats by a rule not expanded here`, rrule }
      : {}),
    ...(location ? { location } : {}),
    ...(description
      ? {
          description:
            description.length > CALENDAR_DESCRIPTION_CHARS
              ? `${description.slice(0, CALENDAR_DESCRIPTION_CHARS)}…`
              : description,
        }
      : {}),
  };
}

/** An instant written as its event's kind of time: a date, a floating time, or ISO with the zone's offset. */
export function timeText(like: EventTime, utc: number): string {
  if (like.allDay) return new Date(utc).toISOString().slice(0, 10);
  if (like.zone === undefined) return new Date(utc).toISOString().slice(0, 19);
  return isoInZone(like.zone, utc);
}
