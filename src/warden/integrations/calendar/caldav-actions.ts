import { randomUUID } from "node:crypto";
import {
  createCalendarObject,
  type DAVCalendar,
  type DAVCalendarObject,
  deleteCalendarObject,
  fetchCalendarObjects,
  updateCalendarObject,
} from "tsdav";
import {
  CALENDAR_LIST_MAX,
  type CalendarAction,
  type CalendarArgs,
  type CalendarResults,
  type IntegrationErrorCode,
} from "../../../contracts/index.js";
import { eventView, type Occurrence, occurrencesIn, timesOf, timeText } from "./calendar-event.js";
import { moveEventIn, newEventCalendar } from "./event-writer.js";
import { type IcalComponent, parseIcal, prop, writeIcal } from "./ical-text.js";

// Each calendar action as CalDAV requests (tsdav), on the calendars the user's account holds.

/** A refusal the tool shows as it is: which code, what to do about it, and what the audit keeps. */
export class CalendarError extends Error {
  constructor(
    readonly code: IntegrationErrorCode,
    message: string,
    readonly audit: Record<string, string> = {},
  ) {
    super(message);
  }
}

/** The account's event calendars and how requests reach the server (the guarded fetch, with the login). */
export interface CaldavSession {
  calendars: DAVCalendar[];
  fetch: typeof fetch;
  now: () => number;
}

export interface ActionOutcome<A extends CalendarAction> {
  data: CalendarResults[A];
  audit: Record<string, string>;
}

type Actions = {
  [A in CalendarAction]: (s: CaldavSession, args: CalendarArgs[A]) => Promise<ActionOutcome<A>>;
};

export const caldavActions: Actions = {
  async list_events(session, args) {
    const chosen = pick(session.calendars, args.calendar);
    const from = Date.parse(args.from);
    const to = Date.parse(args.to);
    const found: Occurrence[] = [];
    let unreadable = 0;
    for (const calendar of chosen) {
      const objects = await fetchCalendarObjects({
        calendar,
        timeRange: { start: new Date(from).toISOString(), end: new Date(to).toISOString() },
        urlFilter: (url) => url !== "" && !url.endsWith("/"),
        fetch: session.fetch,
      });
      for (const object of objects) {
        // One object another client wrote badly must not hide the rest of the calendar.
        const parsed = readable(object);
        if (parsed)
          found.push(...occurrencesIn(parsed, nameOf(calendar), { from, to, max: CALENDAR_LIST_MAX + 1 }));
        else unreadable++;
      }
    }
    found.sort((a, b) => a.startUtc - b.startUtc);
    return {
      data: {
        from: args.from,
        to: args.to,
        calendars: chosen.map(nameOf),
        events: found.slice(0, CALENDAR_LIST_MAX).map((o) => o.event),
        truncated: found.length > CALENDAR_LIST_MAX,
        ...(unreadable > 0 ? { unreadable } : {}),
      },
      audit: { calendar: args.calendar ?? "*", events: String(Math.min(found.length, CALENDAR_LIST_MAX)) },
    };
  },
  async create_event(session, args) {
    const [calendar] = pick(session.calendars, args.calendar);
    if (!calendar) throw new CalendarError("not_found", "the account has no calendar to create the event in");
    const uid = `${randomUUID()}@ironclaw`;
    const written = newEventCalendar(args, uid, session.now());
    const response = await createCalendarObject({
      calendar,
      iCalString: writeIcal(written),
      filename: `${uid}.ics`,
      fetch: session.fetch,
    });
    const audit = { calendar: nameOf(calendar), uid };
    if (!response.ok) throw refusal(response, "create the event", audit);
    return { data: { event: eventView(written, nameOf(calendar)) }, audit };
  },
  async move_event(session, args) {
    const { calendar, object, parsed } = await findEvent(session, args.uid, args.calendar);
    const audit = { calendar: nameOf(calendar), uid: args.uid };
    const { previous } = moveEventIn(parsed, args, session.now());
    const response = await updateCalendarObject({
      calendarObject: {
        url: object.url,
        data: writeIcal(parsed),
        ...(object.etag ? { etag: object.etag } : {}),
      },
      fetch: session.fetch,
    });
    if (!response.ok) throw refusal(response, "move the event", audit);
    return {
      data: {
        event: eventView(parsed, nameOf(calendar)),
        previous_start: timeText(previous.start, previous.start.utc),
        previous_end: timeText(previous.start, previous.end.utc),
      },
      audit,
    };
  },
  async delete_event(session, args) {
    const { calendar, object, parsed } = await findEvent(session, args.uid, args.calendar);
    const audit = { calendar: nameOf(calendar), uid: args.uid };
    const response = await deleteCalendarObject({
      calendarObject: { url: object.url, ...(object.etag ? { etag: object.etag } : {}) },
      fetch: session.fetch,
    });
    if (!response.ok) throw refusal(response, "delete the event", audit);
    const summary = eventView(parsed, nameOf(calendar)).summary;
    return { data: { uid: args.uid, calendar: nameOf(calendar), summary }, audit };
  },
};

/** The calendar's name as its owner sees it: its display name, else the last segment of its URL. */
export function nameOf(calendar: DAVCalendar): string {
  if (typeof calendar.displayName === "string" && calendar.displayName.trim() !== "")
    return calendar.displayName;
  return decodeURIComponent(calendar.url.replace(/\/+$/, "").split("/").at(-1) ?? calendar.url);
}

/** The calendars named (by display name or URL segment, any case), or all of them. */
function pick(calendars: DAVCalendar[], name: string | undefined): DAVCalendar[] {
  if (name === undefined) return calendars;
  const wanted = name.toLowerCase();
  const found = calendars.filter(
    (c) =>
      nameOf(c).toLowerCase() === wanted ||
      c.url.replace(/\/+$/, "").split("/").at(-1)?.toLowerCase() === wanted,
  );
  if (found.length === 0)
    throw new CalendarError(
      "not_found",
      `no calendar named ${name}; the account has: ${calendars.map(nameOf).sort().join(", ") || "none"}`,
      { calendar: name },
    );
  return found;
}

/** The object holding the event with this UID (a calendar-query on UID, RFC 4791 §9.7.5, then an exact check). */
async function findEvent(session: CaldavSession, uid: string, name: string | undefined) {
  for (const calendar of pick(session.calendars, name)) {
    const objects = await fetchCalendarObjects({
      calendar,
      filters: uidFilter(uid),
      urlFilter: (url) => url !== "" && !url.endsWith("/"),
      fetch: session.fetch,
    });
    for (const object of objects) {
      const parsed = readObject(object);
      const event = parsed.components.find((c) => c.name === "VEVENT");
      if (event && prop(event, "UID")?.value === uid) return { calendar, object, parsed };
    }
  }
  throw new CalendarError(
    "not_found",
    `no event with uid ${uid} in ${name ?? "any calendar"}: list the events to find its uid`,
    { uid, ...(name ? { calendar: name } : {}) },
  );
}

function uidFilter(uid: string) {
  return {
    "comp-filter": {
      _attributes: { name: "VCALENDAR" },
      "comp-filter": {
        _attributes: { name: "VEVENT" },
        "prop-filter": {
          _attributes: { name: "UID" },
          "text-match": { _attributes: { collation: "i;octet" }, _text: uid },
        },
      },
    },
  };
}

function readable(object: DAVCalendarObject): IcalComponent | undefined {
  try {
    return readObject(object);
  } catch {
    return undefined;
  }
}

function readObject(object: DAVCalendarObject): IcalComponent {
  try {
    const parsed = parseIcal(String(object.data ?? ""));
    for (const event of parsed.components.filter((c) => c.name === "VEVENT")) timesOf(event);
    return parsed;
  } catch (error) {
    throw new CalendarError(
      "upstream",
      `the server sent an event that cannot be read: ${(error as Error).message}`,
    );
  }
}

function refusal(response: Response, what: string, audit: Record<string, string>): CalendarError {
  const status = response.status;
  const code: IntegrationErrorCode =
    status === 401 || status === 403
      ? "forbidden"
      : status === 404
        ? "not_found"
        : status === 412
          ? "invalid"
          : status === 507
            ? "refused"
            : "upstream";
  const why =
    status === 412
      ? "the event changed on the server meanwhile; list it again and retry"
      : `the server answered HTTP ${status}`;
  return new CalendarError(code, `could not ${what}: ${why}`, { ...audit, status: String(status) });
}
