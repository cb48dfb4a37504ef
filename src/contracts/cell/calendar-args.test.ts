import { describe, expect, it } from "vitest";
import { describeRrule, formatRrule, parseRrule } from "./calendar-rrule.js";
import { integrationRequestSchema } from "./protocol-integration.js";

const frame = (action: string, args: Record<string, unknown>) => ({
  type: "IntegrationRequest",
  user_id: "alice",
  session_id: "s1",
  msg_id: 1,
  timestamp: "2026-11-28T05:00:00.000Z",
  integration: "calendar",
  action,
  args,
});

function problems(action: string, args: Record<string, unknown>): string[] {
  const parsed = integrationRequestSchema.safeParse(frame(action, args));
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
}

const event = {
  summary: "Dentist",
  start: "2026-12-01T09:30",
  end: "2026-12-01T10:00",
  time_zone: "Europe/Paris",
};

describe("calendar arguments", () => {
  it("accept an event in an IANA zone with a weekly rule", () => {
    expect(
      problems("create_event", { ...event, recurrence: "FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20270301" }),
    ).toEqual([]);
  });

  it("name the field and the rule of each mistake", () => {
    expect(problems("create_event", { ...event, time_zone: "Paris" })).toEqual([
      "args.time_zone: must be an IANA time zone, like Europe/Paris or America/New_York",
    ]);
    expect(problems("create_event", { ...event, end: "2026-12-01T09:00" })).toEqual([
      "args.end: must be after start",
    ]);
    expect(problems("create_event", { ...event, start: "2026-02-30T09:00" })).toEqual([
      "args.start: must be a real date and time",
    ]);
    expect(problems("list_events", { from: "2026-12-01T00:00", to: "2026-12-02T00:00:00Z" })).toEqual([
      "args.from: must be an ISO 8601 date-time with an offset, like 2026-12-01T09:00:00+01:00",
    ]);
    expect(problems("list_events", { from: "2026-01-01T00:00:00Z", to: "2027-06-01T00:00:00Z" })).toEqual([
      "args.to: must be at most 366 days after from",
    ]);
    expect(problems("delete_event", { uid: "../other/event" })).toEqual([
      "args.uid: must have no spaces, slashes or backslashes",
    ]);
    expect(problems("create_event", { ...event, recurrence: "FREQ=HOURLY" })).toEqual([
      "args.recurrence: must be an RRULE: FREQ: must be one of DAILY, WEEKLY, MONTHLY, YEARLY",
    ]);
    expect(problems("create_event", { ...event, recurrence: "FREQ=YEARLY;BYDAY=MO" })).toEqual([
      "args.recurrence: must be an RRULE: BYDAY: only with FREQ=WEEKLY or FREQ=MONTHLY",
    ]);
    expect(problems("create_event", { ...event, recurrence: "FREQ=YEARLY" })).toEqual([]);
  });
});

describe("recurrence rules", () => {
  it("refuse what the subset does not cover, naming the part", () => {
    expect(() => parseRrule("FREQ=DAILY;COUNT=3;UNTIL=20270101")).toThrow(
      "COUNT: must not be given with UNTIL",
    );
    expect(() => parseRrule("FREQ=WEEKLY;BYDAY=2TU")).toThrow("allowed only with FREQ=MONTHLY");
    expect(() => parseRrule("FREQ=MONTHLY;BYMONTHDAY=3")).toThrow("BYMONTHDAY: not supported");
    expect(() => parseRrule("FREQ=DAILY;INTERVAL=0")).toThrow(
      "INTERVAL: must be a whole number from 1 to 1000",
    );
  });

  it("read, write and say a rule in words", () => {
    const rule = parseRrule("RRULE:freq=monthly;byday=-1FR;interval=2;count=4");
    expect(formatRrule(rule)).toBe("FREQ=MONTHLY;INTERVAL=2;BYDAY=-1FR;COUNT=4");
    expect(describeRrule(rule)).toBe("every 2 months on last Friday, 4 times");
  });
});
