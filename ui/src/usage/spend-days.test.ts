import { describe, expect, it } from "vitest";
import { daysEndingOn, fillDays, scaleTop, todayIn, usd, usdMark } from "./spend-days.js";

describe("the usage page's days", () => {
  it("takes today from the user's time zone, not the browser's", () => {
    const late = new Date("2026-03-01T23:30:00Z");
    expect(todayIn("UTC", late)).toBe("2026-03-01");
    expect(todayIn("Asia/Tokyo", late)).toBe("2026-03-02");
    expect(todayIn("America/Los_Angeles", late)).toBe("2026-03-01");
  });

  it("counts back across month and leap-day ends", () => {
    expect(daysEndingOn("2024-03-02", 4)).toEqual(["2024-02-28", "2024-02-29", "2024-03-01", "2024-03-02"]);
    expect(daysEndingOn("not a day", 3)).toEqual([]);
  });

  it("fills days without calls with zero and keeps the report's figures for the rest", () => {
    const rows = [
      { key: "2026-01-02", cost_usd: 0.5, calls: 3, refused: 1 },
      { key: "2025-12-01", cost_usd: 9, calls: 9, refused: 0 },
    ];
    expect(fillDays(["2026-01-01", "2026-01-02"], rows)).toEqual([
      { day: "2026-01-01", usd: 0, calls: 0, refused: 0 },
      { day: "2026-01-02", usd: 0.5, calls: 3, refused: 1 },
    ]);
  });

  it("scales the chart above both the highest day and the cap", () => {
    expect(scaleTop([0.2, 0.7], 1)).toBe(2);
    expect(scaleTop([3.2], 1)).toBe(5);
    expect(scaleTop([0.02], undefined)).toBe(0.025);
    expect(scaleTop([], undefined)).toBe(0.01);
  });

  it("writes dollars with cents, and fractions of a cent when that is all there is", () => {
    expect(usd(0)).toBe("$0.00");
    expect(usd(12.5)).toBe("$12.50");
    expect(usd(0.0315)).toBe("$0.03");
    expect(usd(0.0042)).toBe("$0.0042");
  });

  it("marks the chart's scale with every digit it has, so a mark never reads as its neighbour", () => {
    expect(usdMark(0.025)).toBe("$0.025");
    expect(usdMark(0.05)).toBe("$0.05");
    expect(usdMark(2.5)).toBe("$2.50");
    expect(usdMark(0.0125)).toBe("$0.0125");
    expect(usdMark(0)).toBe("$0.00");
  });
});
