import {
  type CalendarArgs,
  formatRrule,
  parseRrule,
  type Rrule,
  WEEKDAYS,
} from "../../../contracts/index.js";
import { timesOf } from "./calendar-event.js";
import { escapeText, type IcalComponent, type IcalProperty, prop, property } from "./ical-text.js";
import { readTime, stamp, timeProperty } from "./ical-time.js";
import { vtimezoneFor } from "./vtimezone.js";
import { instantOf, instantOfInput, wallOf } from "./zoned-time.js";

// The calendar objects the tools write: a new event in its own VCALENDAR (RFC 4791 §4.1: one UID per resource)
// with the VTIMEZONE its times name, and an existing event moved by rewriting DTSTART and DTEND only, every
// other line of it kept as its author wrote it.

const PRODID = "-//IronClaw//calendar tools//EN";

/** Thrown for arguments that name no possible event (an end before its start once offsets are applied). */
export class EventInputError extends Error {}

/** A new event's VCALENDAR. */
export function newEventCalendar(
  args: CalendarArgs["create_event"],
  uid: string,
  nowMs: number,
): IcalComponent {
  const zone = args.time_zone;
  const start = instantOfInput(zone, args.start);
  const end = instantOfInput(zone, args.end);
  if (end <= start) throw new EventInputError("end: must be after start");
  const props: IcalProperty[] = [
    property("UID", uid),
    property("DTSTAMP", `${stamp(nowMs)}Z`),
    property("CREATED", `${stamp(nowMs)}Z`),
    timeProperty("DTSTART", zone, start),
    timeProperty("DTEND", zone, end),
    property("SUMMARY", escapeText(args.summary)),
    ...(args.location ? [property("LOCATION", escapeText(args.location))] : []),
    ...(args.description ? [property("DESCRIPTION", escapeText(args.description))] : []),
    ...(args.recurrence ? [property("RRULE", formatRrule(parseRrule(args.recurrence)))] : []),
  ];
  return {
    name: "VCALENDAR",
    properties: [property("VERSION", "2.0"), property("PRODID", PRODID), property("CALSCALE", "GREGORIAN")],
    components: [
      ...(zone === "UTC" ? [] : [vtimezoneFor(zone, start)]),
      { name: "VEVENT", properties: props, components: [] },
    ],
  };
}

/**
 * Moves the event (its whole series, for a recurring one) to a new start, keeping its length unless a new end is
 * given, and its zone unless a new one is. Returns the previous times for the answer.
 */
export function moveEventIn(
  calendar: IcalComponent,
  args: CalendarArgs["move_event"],
  nowMs: number,
): { event: IcalComponent; previous: ReturnType<typeof timesOf> } {
  const event = calendar.components.find((c) => c.name === "VEVENT" && !prop(c, "RECURRENCE-ID"));
  if (!event) throw new EventInputError("uid: the calendar object holds no event to move");
  const previous = timesOf(event);
  const zone = args.time_zone ?? previous.start.zone ?? "UTC";
  if (previous.start.allDay && args.time_zone === undefined)
    throw new EventInputError("time_zone: is required to move an all-day event to a time");
  const start = instantOfInput(zone, args.start);
  const end =
    args.end === undefined ? start + (previous.end.utc - previous.start.utc) : instantOfInput(zone, args.end);
  if (end <= start) throw new EventInputError("end: must be after start");
  const sequence = Number(prop(event, "SEQUENCE")?.value ?? 0) + 1;
  const replaced = new Set(["DTSTART", "DTEND", "DURATION", "DTSTAMP", "SEQUENCE", "LAST-MODIFIED"]);
  event.properties = [
    ...event.properties.filter((p) => !replaced.has(p.name)),
    timeProperty("DTSTART", zone, start),
    timeProperty("DTEND", zone, end),
    property("DTSTAMP", `${stamp(nowMs)}Z`),
    property("LAST-MODIFIED", `${stamp(nowMs)}Z`),
    property("SEQUENCE", String(sequence)),
  ];
  shiftSeries(calendar, event, { zone, wallDelta: wallIn(zone, start) - previous.start.wall });
  const zones = new Set(
    calendar.components.filter((c) => c.name === "VTIMEZONE").map((c) => prop(c, "TZID")?.value),
  );
  if (zone !== "UTC" && !zones.has(zone)) calendar.components.unshift(vtimezoneFor(zone, start));
  return { event, previous };
}

const DAY = 86_400_000;

function wallIn(zone: string, utc: number): number {
  return zone === "UTC" ? utc : wallOf(zone, utc);
}

/**
 * A series moved by some days and hours keeps its shape: its rule's weekdays move with it (a Tuesday meeting moved
 * to Wednesday recurs on Wednesdays), and the occurrences it cancels (EXDATE) or changes (an override's
 * RECURRENCE-ID) move by the same clock time, so they still name occurrences of the moved series.
 */
function shiftSeries(
  calendar: IcalComponent,
  master: IcalComponent,
  shift: { zone: string; wallDelta: number },
): void {
  if (shift.wallDelta === 0) return;
  const dayShift = ((Math.round(shift.wallDelta / DAY) % 7) + 7) % 7;
  const rrule = prop(master, "RRULE");
  if (rrule && dayShift !== 0) {
    const rule = ruleOf(rrule.value);
    if (rule?.byDay) {
      rule.byDay = rule.byDay.map((d) => ({
        ...d,
        day: WEEKDAYS[(WEEKDAYS.indexOf(d.day) + dayShift) % 7] ?? d.day,
      }));
      master.properties = master.properties.map((p) =>
        p === rrule ? property("RRULE", formatRrule(rule)) : p,
      );
    }
  }
  const moved = (p: IcalProperty, name: string) =>
    p.value.split(",").map((v) => {
      const wall = readTime(p, v).wall + shift.wallDelta;
      return timeProperty(name, shift.zone, shift.zone === "UTC" ? wall : instantOf(shift.zone, wall));
    });
  master.properties = master.properties.flatMap((p) => (p.name === "EXDATE" ? moved(p, "EXDATE") : [p]));
  for (const override of calendar.components.filter((c) => c.name === "VEVENT" && c !== master))
    override.properties = override.properties.flatMap((p) =>
      p.name === "RECURRENCE-ID" ? moved(p, "RECURRENCE-ID") : [p],
    );
}

/** A rule outside the subset the tools write is kept as it is. */
function ruleOf(text: string): Rrule | undefined {
  try {
    return parseRrule(text);
  } catch {
    return undefined;
  }
}
