import { describe, expect, it } from "vitest";
import { parseRrule } from "../../../contracts/index.js";
import { expandRule } from "./recurrence.js";
import { instantOf, isoInZone, wallFromIso } from "./zoned-time.js";

const HOUR = 3_600_000;

function occurrences(
  rrule: string,
  start: string,
  zone: string,
  from: string,
  to: string,
  skip: string[] = [],
) {
  const starts = expandRule({
    rule: parseRrule(rrule),
    startWall: wallFromIso(start),
    toInstant: (wall) => instantOf(zone, wall),
    durationMs: HOUR,
    skip: new Set(skip.map((s) => instantOf(zone, wallFromIso(s)))),
    from: Date.parse(from),
    to: Date.parse(to),
    max: 100,
  });
  return starts.map((s) => isoInZone(zone, s));
}

describe("expanding a recurrence rule", () => {
  it("keeps the wall time of a daily rule across the change to summer time", () => {
    expect(
      occurrences(
        "FREQ=DAILY;COUNT=3",
        "2027-03-27T09:00",
        "Europe/Paris",
        "2027-03-01T00:00Z",
        "2027-04-01T00:00Z",
      ),
    ).toEqual(["2027-03-27T09:00:00+01:00", "2027-03-28T09:00:00+02:00", "2027-03-29T09:00:00+02:00"]);
  });

  it("takes the nth and last weekdays of a month and skips months without them", () => {
    expect(
      occurrences(
        "FREQ=MONTHLY;BYDAY=5FR;COUNT=2",
        "2027-01-29T12:00",
        "UTC",
        "2027-01-01T00:00Z",
        "2028-01-01T00:00Z",
      ),
    ).toEqual(["2027-01-29T12:00:00Z", "2027-04-30T12:00:00Z"]);
    expect(
      occurrences(
        "FREQ=MONTHLY;BYDAY=-1MO;UNTIL=20270301",
        "2027-01-25T08:00",
        "America/New_York",
        "2027-01-01T00:00Z",
        "2028-01-01T00:00Z",
      ),
    ).toEqual(["2027-01-25T08:00:00-05:00", "2027-02-22T08:00:00-05:00"]);
  });

  it("counts occurrences before the range and leaves out EXDATEs", () => {
    expect(
      occurrences(
        "FREQ=WEEKLY;INTERVAL=2;BYDAY=MO,WE;COUNT=5",
        "2027-01-04T10:00",
        "Asia/Tokyo",
        "2027-01-10T00:00Z",
        "2027-03-01T00:00Z",
        ["2027-01-18T10:00"],
      ),
    ).toEqual(["2027-01-20T10:00:00+09:00", "2027-02-01T10:00:00+09:00"]);
  });

  it("reaches a range years after an open-ended daily rule began", () => {
    expect(
      occurrences("FREQ=DAILY", "1990-06-01T07:00", "UTC", "2027-06-01T00:00Z", "2027-06-03T00:00Z"),
    ).toEqual(["2027-06-01T07:00:00Z", "2027-06-02T07:00:00Z"]);
  });

  it("repeats a yearly event on its day, skips 29 February in other years, and reaches years ahead", () => {
    expect(
      occurrences(
        "FREQ=YEARLY",
        "2026-03-14T18:00",
        "Europe/Paris",
        "2027-01-01T00:00Z",
        "2029-01-01T00:00Z",
      ),
    ).toEqual(["2027-03-14T18:00:00+01:00", "2028-03-14T18:00:00+01:00"]);
    expect(
      occurrences("FREQ=YEARLY;COUNT=3", "2028-02-29T09:00", "UTC", "2028-01-01T00:00Z", "2040-01-01T00:00Z"),
    ).toEqual(["2028-02-29T09:00:00Z", "2032-02-29T09:00:00Z", "2036-02-29T09:00:00Z"]);
    expect(
      occurrences(
        "FREQ=YEARLY;INTERVAL=2",
        "1990-07-01T12:00",
        "UTC",
        "2030-01-01T00:00Z",
        "2033-01-01T00:00Z",
      ),
    ).toEqual(["2030-07-01T12:00:00Z", "2032-07-01T12:00:00Z"]);
  });
});
