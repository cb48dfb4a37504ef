import { describe, expect, it } from "vitest";
import { escapeText, parseIcal, prop, unescapeText, writeIcal } from "./ical-text.js";
import { vtimezoneFor } from "./vtimezone.js";

describe("iCalendar text", () => {
  it("gives back every line it did not change, folded at 75 octets without splitting a character", () => {
    const long = `DESCRIPTION:${"é".repeat(60)}`;
    const text = [
      "BEGIN:VCALENDAR",
      "VERSION:2.0",
      "BEGIN:VEVENT",
      "UID:a@b",
      'ATTENDEE;CN="Doe, Jane";ROLE=REQ-PARTICIPANT:mailto:jane@example.org',
      "X-OTHER-CLIENT:kept",
      long,
      "BEGIN:VALARM",
      "TRIGGER:-PT15M",
      "END:VALARM",
      "END:VEVENT",
      "END:VCALENDAR",
      "",
    ].join("\r\n");
    const written = writeIcal(parseIcal(text));
    for (const line of written.split("\r\n")) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    expect(written.replace(/\r\n /g, "")).toBe(text);
    const event = parseIcal(written).components[0];
    expect(event && prop(event, "ATTENDEE")?.params.CN).toBe("Doe, Jane");
  });

  it("refuses text whose components do not pair", () => {
    expect(() => parseIcal("BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nEND:VCALENDAR\r\n")).toThrow(
      "END:VCALENDAR does not close VEVENT",
    );
  });

  it("escapes and reads back a TEXT value", () => {
    const value = "Room 4; floor 2, left\nbring a \\ pen";
    expect(escapeText(value)).toBe("Room 4\\; floor 2\\, left\\nbring a \\\\ pen");
    expect(unescapeText(escapeText(value))).toBe(value);
  });
});

describe("VTIMEZONE from the zone database", () => {
  it("lists each change of offset around the event as an observance", () => {
    const zone = vtimezoneFor("Europe/Paris", Date.UTC(2026, 5, 1));
    const starts = zone.components.map(
      (c) => `${c.name} ${prop(c, "DTSTART")?.value} ${prop(c, "TZOFFSETTO")?.value}`,
    );
    expect(starts).toContain("DAYLIGHT 20260329T020000 +0200");
    expect(starts).toContain("STANDARD 20261025T030000 +0100");
    expect(starts[0]).toBe("STANDARD 19700101T000000 +0100");
    expect(starts.length).toBe(1 + 2 * 12);
  });

  it("gives a zone without changes one observance", () => {
    const zone = vtimezoneFor("Asia/Tokyo", Date.UTC(2026, 0, 1));
    expect(
      zone.components.map(
        (c) => `${c.name} ${prop(c, "TZOFFSETFROM")?.value} ${prop(c, "TZOFFSETTO")?.value}`,
      ),
    ).toEqual(["STANDARD +0900 +0900"]);
  });
});
