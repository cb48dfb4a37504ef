import { describe, expect, it } from "vitest";
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
    expect(previewSchedule("61 7 * * *", "UTC")).toEqual({
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
    expect(previewSchedule("0 0 31 2 *", "UTC")).toEqual({
      ok: false,
      error: "This schedule never runs (no such date).",
    });
    expect(previewSchedule("  ", "UTC")).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^Enter a schedule/),
    });
  });
});
