import { describe, expect, it } from "vitest";
import { checkCronFields } from "./cron-fields.js";
import { previewSchedule } from "./cron-schedule.js";

describe("the cron schedule preview", () => {
  it("lists the next five runs of a schedule read in its own time zone", () => {
    const preview = previewSchedule("30 6 * * 1-5", "Europe/Berlin", 5, new Date("2026-03-06T12:00:00Z"));
    expect(preview.ok && preview.next.map((d) => d.toISOString())).toEqual([
      "2026-03-09T05:30:00.000Z",
      "2026-03-10T05:30:00.000Z",
      "2026-03-11T05:30:00.000Z",
      "2026-03-12T05:30:00.000Z",
      "2026-03-13T05:30:00.000Z",
    ]);
  });

  it("names the field that is out of range, the wrong number of fields, an unknown zone and a date that never comes", () => {
    expect(previewSchedule("61 7 * * *", "UTC")).toMatchObject({
      ok: false,
      error: "Invalid value for minute: 61",
    });
    expect(previewSchedule("7 * *", "UTC")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/five or six/),
    });
    expect(previewSchedule("0 7 * * *", "Mars/Olympus")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/not a time zone/),
    });
    expect(previewSchedule("0 0 31 2 *", "UTC")).toMatchObject({
      ok: false,
      error: "This schedule never runs (no such date).",
    });
    expect(previewSchedule("  ", "UTC")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^Enter a schedule/),
    });
  });

  it("names every invalid field, not only the first, and a bad zone beside them", () => {
    expect(previewSchedule("61 25 * * *", "UTC")).toMatchObject({
      ok: false,
      errors: ["Invalid value for minute: 61", "Invalid value for hour: 25"],
    });
    expect(previewSchedule("0 61 25 32 13 8", "Mars/Olympus")).toMatchObject({
      ok: false,
      errors: [
        "Invalid value for minute: 61",
        "Invalid value for hour: 25",
        "Invalid value for day of month: 32",
        "Invalid value for month: 13",
        "Invalid value for day of week: 8",
        expect.stringMatching(/Mars\/Olympus is not a time zone/),
      ],
    });
    expect(checkCronFields("*/0 1-3 * * mon,fri")).toEqual(["Invalid value for minute: */0"]);
    expect(checkCronFields("5 1-24 * foo *")).toEqual([
      "Invalid value for hour: 1-24",
      "Invalid value for month: foo",
    ]);
  });

  it("accepts what croner accepts: steps, ranges, lists, names, L and nth weekdays", () => {
    for (const expression of [
      "*/15 9-17 * * 1-5",
      "0 0 L * *",
      "0 9 * * fri#2",
      "0 9 * * 5L",
      "0 0 1,15 jan-jun ?",
      "30 0 6 * * sun",
      "0 0 * * 7",
    ]) {
      expect(checkCronFields(expression), expression).toEqual([]);
      expect(previewSchedule(expression, "UTC").ok, expression).toBe(true);
    }
  });
});
