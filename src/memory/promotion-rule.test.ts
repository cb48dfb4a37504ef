import { describe, expect, it } from "vitest";
import { InvalidInputError } from "../core/index.js";
import { promotionEntry, type RecallUse, selectPromotions } from "./promotion-rule.js";

const use = (chunkId: string, sessionId: string, at: string, path = "logs/2026-03-01.md"): RecallUse => ({
  chunkId,
  sessionId,
  day: at.slice(0, 10),
  path,
  headings: ["2026-03-01", "Pressure"],
  text: "## Pressure\n\n1.5 bar",
  at,
});
const rule = { minSessions: 3, minDays: 2, windowDays: 30 };
const now = new Date("2026-03-10T00:00:00Z");

describe("the promotion rule", () => {
  it("needs enough sessions on enough days inside the window", () => {
    const three = [
      use("a", "s1", "2026-03-02T10:00:00Z"),
      use("a", "s2", "2026-03-02T11:00:00Z"),
      use("a", "s3", "2026-03-03T10:00:00Z"),
    ];
    expect(selectPromotions(three, rule, now)).toMatchObject([{ chunkId: "a", sessions: 3, days: 2 }]);
    expect(selectPromotions(three.slice(0, 2), rule, now)).toEqual([]);
    const sameDay = three.map((u) => ({ ...u, day: "2026-03-02", at: "2026-03-02T12:00:00Z" }));
    expect(selectPromotions(sameDay, rule, now)).toEqual([]);
    // A week back from the 10th reaches only the use of the 3rd; two weeks reach all three.
    expect(selectPromotions(three, { ...rule, windowDays: 7 }, now)).toEqual([]);
    expect(selectPromotions(three, { ...rule, windowDays: 14 }, now)).toHaveLength(1);
  });

  it("considers only the stream: logs/ and sessions/, never memory.md or other notes", () => {
    const uses = ["s1", "s2", "s3"].map((s, i) => use("m", s, `2026-03-0${i + 2}T10:00:00Z`, "memory.md"));
    expect(selectPromotions(uses, rule, now)).toEqual([]);
  });

  it("refuses a rule that could promote anything, naming the field", () => {
    expect(() => selectPromotions([], { ...rule, minDays: 0 }, now)).toThrow(InvalidInputError);
    expect(() => selectPromotions([], { ...rule, minDays: 0 }, now)).toThrow(/minDays/);
  });

  it("writes the fact without its headings and with a citation of its source", () => {
    expect(
      promotionEntry(
        { path: "logs/x.md", headings: ["x", "Pressure"], text: "## Pressure\n\n1.5 bar" },
        "note",
      ),
    ).toEqual({
      title: "1.5 bar",
      text: "1.5 bar\n\n_Source: [logs/x.md#Pressure] — note_",
    });
  });
});
