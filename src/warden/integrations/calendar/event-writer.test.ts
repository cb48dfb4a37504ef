import { describe, expect, it } from "vitest";
import { occurrencesIn } from "./calendar-event.js";
import { moveEventIn } from "./event-writer.js";
import { parseIcal, prop, writeIcal } from "./ical-text.js";

// A weekly Tuesday meeting another client wrote, with one occurrence cancelled and one moved to 11:00.
const SERIES = [
  "BEGIN:VCALENDAR",
  "BEGIN:VEVENT",
  "UID:weekly@example.org",
  "DTSTART;TZID=Europe/Paris:20270105T090000",
  "DTEND;TZID=Europe/Paris:20270105T100000",
  "RRULE:FREQ=WEEKLY;BYDAY=TU;COUNT=4",
  "EXDATE;TZID=Europe/Paris:20270112T090000",
  "SUMMARY:Team",
  "END:VEVENT",
  "BEGIN:VEVENT",
  "UID:weekly@example.org",
  "RECURRENCE-ID;TZID=Europe/Paris:20270119T090000",
  "DTSTART;TZID=Europe/Paris:20270119T110000",
  "DTEND;TZID=Europe/Paris:20270119T120000",
  "SUMMARY:Team (late)",
  "END:VEVENT",
  "END:VCALENDAR",
].join("\r\n");

function starts(text: string): string[] {
  const range = { from: Date.UTC(2027, 0, 1), to: Date.UTC(2027, 2, 1), max: 50 };
  return occurrencesIn(parseIcal(text), "Home", range)
    .sort((a, b) => a.startUtc - b.startUtc)
    .map((o) => `${o.event.start} ${o.event.summary}`);
}

describe("moving a recurring event", () => {
  it("moves its weekdays, its cancellations and its changed occurrence with it", () => {
    expect(starts(SERIES)).toEqual([
      "2027-01-05T09:00:00+01:00 Team",
      "2027-01-19T11:00:00+01:00 Team (late)",
      "2027-01-26T09:00:00+01:00 Team",
    ]);
    const calendar = parseIcal(SERIES);
    moveEventIn(calendar, { uid: "weekly@example.org", start: "2027-01-06T14:00" }, Date.UTC(2027, 0, 1));
    const master = calendar.components.find((c) => c.name === "VEVENT" && !prop(c, "RECURRENCE-ID"));
    expect(master && prop(master, "RRULE")?.value).toBe("FREQ=WEEKLY;BYDAY=WE;COUNT=4");
    // The override keeps its own time; it now names the moved series' third occurrence.
    expect(starts(writeIcal(calendar))).toEqual([
      "2027-01-06T14:00:00+01:00 Team",
      "2027-01-19T11:00:00+01:00 Team (late)",
      "2027-01-27T14:00:00+01:00 Team",
    ]);
  });
});
