import { z } from "zod";
import { aBoolean, aNumber, aString } from "../common.js";
import type { CalendarAction } from "./calendar-args.js";

// What each calendar action answers, compact: the fields a person reads. Times are ISO 8601 with the offset the
// event's own time zone has at that moment (10:00 in Paris in winter is 2026-12-01T10:00:00+01:00), so the model
// reads the wall time the person sees; an all-day event's start and end are dates.

/** Longest description kept in a listing; longer text is cut and says so. */
export const CALENDAR_DESCRIPTION_CHARS = 500;
/** Most occurrences one listing returns; a denser range says it was cut. */
export const CALENDAR_LIST_MAX = 200;

export const calendarEventSchema = z.strictObject({
  uid: aString(),
  calendar: aString(),
  summary: aString(),
  start: aString(),
  end: aString(),
  /** The IANA zone the event is written in, or "UTC"; "floating" for a time without a zone. */
  time_zone: aString(),
  all_day: aBoolean(),
  /** For a recurring event: its rule in words ("every week on Tuesday, 10 times") and as written. */
  recurrence: aString().optional(),
  rrule: aString().optional(),
  location: aString().optional(),
  description: aString().optional(),
});
export type CalendarEvent = z.output<typeof calendarEventSchema>;

export const calendarResultSchemas = {
  list_events: z.strictObject({
    from: aString(),
    to: aString(),
    calendars: z.array(aString()),
    /** Each occurrence in the range, a recurring event once per occurrence, in time order. */
    events: z.array(calendarEventSchema),
    truncated: aBoolean(),
    /** Calendar objects in the range that are not iCalendar the warden can read (left out, counted). */
    unreadable: aNumber().int("must be an integer").min(1, "must be at least 1").optional(),
  }),
  create_event: z.strictObject({ event: calendarEventSchema }),
  move_event: z.strictObject({
    event: calendarEventSchema,
    previous_start: aString(),
    previous_end: aString(),
  }),
  delete_event: z.strictObject({ uid: aString(), calendar: aString(), summary: aString() }),
} satisfies Record<CalendarAction, z.ZodType>;

export type CalendarResults = { [A in CalendarAction]: z.output<(typeof calendarResultSchemas)[A]> };
