import { z } from "zod";
import { aString } from "../common.js";
import { parseRrule } from "./calendar-rrule.js";
import { isTimeZone } from "./cron-expression.js";

// The calendar integration's actions and their arguments (issue #38: list, create, move, delete events; time
// zones; recurrence). One schema each: the tool's parameters, the cell's check of the model's call and the
// warden's check of the frame. Times the model writes are ISO 8601; a time zone is an IANA name.

export const CALENDAR_ACTIONS = ["list_events", "create_event", "move_event", "delete_event"] as const;
export type CalendarAction = (typeof CALENDAR_ACTIONS)[number];

/** The longest range one listing may cover: a year, so that an open-ended rule cannot expand without end. */
export const CALENDAR_RANGE_MAX_DAYS = 366;

const OFFSET_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,3})?)?(Z|[+-]\d{2}:\d{2})$/;
const LOCAL_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?(Z|[+-]\d{2}:\d{2})?$/;

/** Whether the date and time written exist (no 31 April, no 25:00). */
function isRealDateTime(value: string): boolean {
  const [y, mo, d, h, mi, s] = [0, 5, 8, 11, 14, 17].map((at) =>
    Number(value.slice(at, at + (at ? 2 : 4)) || 0),
  );
  const date = new Date(Date.UTC(y ?? 0, (mo ?? 1) - 1, d ?? 1));
  return (
    date.getUTCMonth() === (mo ?? 1) - 1 &&
    date.getUTCDate() === d &&
    (h ?? 0) < 24 &&
    (mi ?? 0) < 60 &&
    (s ?? 0) < 60
  );
}

const instant = aString()
  .regex(OFFSET_TIME, "must be an ISO 8601 date-time with an offset, like 2026-12-01T09:00:00+01:00")
  .refine(isRealDateTime, "must be a real date and time");
const wallTime = aString()
  .regex(LOCAL_TIME, "must be an ISO 8601 date-time, like 2026-12-01T09:30 (in time_zone) or with an offset")
  .refine(isRealDateTime, "must be a real date and time");
const timeZone = aString()
  .refine(isTimeZone, "must be an IANA time zone, like Europe/Paris or America/New_York")
  .describe("the IANA time zone the times are in and the event keeps, like Europe/Paris");
const calendar = aString()
  .trim()
  .min(1, "must not be empty")
  .max(200, "must be at most 200 characters")
  .optional()
  .describe("the calendar's name (default: every calendar to list, the first calendar to create in)");
const uid = aString()
  .min(1, "must not be empty")
  .max(255, "must be at most 255 characters")
  .regex(/^[^\s\\/]+$/, "must have no spaces, slashes or backslashes")
  .describe("the event's uid, as listed");
const recurrence = aString()
  .max(200, "must be at most 200 characters")
  .superRefine((value, ctx) => {
    try {
      parseRrule(value);
    } catch (error) {
      ctx.addIssue({
        code: "custom",
        message: `must be an RRULE: ${(error as Error).message}`,
        input: value,
      });
    }
  })
  .describe(
    "an RFC 5545 RRULE: FREQ=DAILY|WEEKLY|MONTHLY|YEARLY (YEARLY: the start's month and day), optional " +
      "INTERVAL, COUNT or UNTIL (YYYYMMDD), BYDAY (MO,WE or 1MO / -1FR for MONTHLY), like FREQ=WEEKLY;BYDAY=TU;COUNT=10",
  );

/** Wall times without offsets compare as text once seconds are written; with offsets the runner compares instants. */
function endAfterStart(v: { start: string; end?: string | undefined }, ctx: z.RefinementCtx): void {
  const plain = (t: string) => (t.length === 16 ? `${t}:00` : t);
  const zoned = /(Z|[+-]\d{2}:\d{2})$/;
  if (v.end === undefined || zoned.test(v.start) || zoned.test(v.end)) return;
  if (plain(v.end) <= plain(v.start))
    ctx.addIssue({ code: "custom", path: ["end"], message: "must be after start", input: v.end });
}

export const calendarArgsSchemas = {
  list_events: z
    .strictObject({
      from: instant.describe("the range's start, ISO 8601 with an offset"),
      to: instant.describe("the range's end (exclusive), ISO 8601 with an offset"),
      calendar,
    })
    .superRefine((v, ctx) => {
      const span = Date.parse(v.to) - Date.parse(v.from);
      if (span <= 0)
        ctx.addIssue({ code: "custom", path: ["to"], message: "must be after from", input: v.to });
      else if (span > CALENDAR_RANGE_MAX_DAYS * 86_400_000)
        ctx.addIssue({
          code: "custom",
          path: ["to"],
          message: `must be at most ${CALENDAR_RANGE_MAX_DAYS} days after from`,
          input: v.to,
        });
    }),
  create_event: z
    .strictObject({
      summary: aString().trim().min(1, "must not be empty").max(500, "must be at most 500 characters"),
      start: wallTime.describe("when it starts, like 2026-12-01T09:30 (wall time in time_zone)"),
      end: wallTime.describe("when it ends, like 2026-12-01T10:30"),
      time_zone: timeZone,
      description: aString().max(10_000, "must be at most 10000 characters").optional(),
      location: aString().max(500, "must be at most 500 characters").optional(),
      recurrence: recurrence.optional(),
      calendar,
    })
    .superRefine(endAfterStart),
  move_event: z
    .strictObject({
      uid,
      start: wallTime.describe("the new start, like 2026-12-02T14:00 (in time_zone, default the event's)"),
      end: wallTime.optional().describe("the new end (default: the same length as before)"),
      time_zone: timeZone.optional(),
      calendar,
    })
    .superRefine(endAfterStart),
  delete_event: z.strictObject({ uid, calendar }),
} satisfies Record<CalendarAction, z.ZodType>;

export type CalendarArgs = { [A in CalendarAction]: z.output<(typeof calendarArgsSchemas)[A]> };
