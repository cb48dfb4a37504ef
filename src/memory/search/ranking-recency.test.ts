import { describe, expect, it } from "vitest";
import { ageInDays, isAfter, recencyFactor, sourceAge } from "./ranking-recency.js";

describe("recency of a brain file", () => {
  it.each([
    ["logs/2025-03-02.md", "2025-03-02"],
    ["logs/2025-03-02-evening.md", "2025-03-02"],
    ["logs/2025/2025-03-02.md", "2025-03-02"],
    ["sessions/2025-03-02/01JK3M4ZQ8R6T2V9W5X7Y0A1B3.md", "2025-03-02"],
  ])("dates %s by its path", (path, date) => {
    expect(sourceAge(path)).toEqual({ kind: "dated", date });
  });

  it.each([
    "soul.md",
    "identity.md",
    "memory.md",
    "instructions/style.md",
    "instructions/work/2025-01-01.md",
  ])("never decays the evergreen %s", (path) => {
    expect(sourceAge(path)).toEqual({ kind: "evergreen" });
  });

  it.each([
    "projects/heron.md",
    "notes/2025-03-02.md",
    "logs/2025-02-30.md",
    "logs/summary.md",
    "sessions/latest.md",
    "people/memory.md",
  ])("leaves %s undated (not a real date under logs/ or sessions/)", (path) => {
    expect(sourceAge(path)).toEqual({ kind: "undated" });
  });

  it("counts whole UTC days and treats a future date as today", () => {
    expect(ageInDays("2025-03-02", new Date("2025-03-02T23:59:00Z"))).toBe(0);
    expect(ageInDays("2025-03-02", new Date("2025-03-12T00:00:01Z"))).toBe(10);
    expect(ageInDays("2025-03-02", new Date("2025-01-01T00:00:00Z"))).toBe(0);
  });

  it("halves the way to the floor every half-life and never goes below it", () => {
    expect(recencyFactor(0, 90, 0.8)).toBe(1);
    expect(recencyFactor(90, 90, 0.8)).toBeCloseTo(0.9, 10);
    expect(recencyFactor(180, 90, 0.8)).toBeCloseTo(0.85, 10);
    expect(recencyFactor(100_000, 90, 0.8)).toBeCloseTo(0.8, 10);
    expect(recencyFactor(45, 30, 0)).toBeCloseTo(0.5 ** 1.5, 10);
  });

  it("knows what did not exist yet on an as-of date", () => {
    const asOf = new Date("2025-03-02T08:00:00Z");
    expect(isAfter({ kind: "dated", date: "2025-03-03" }, asOf)).toBe(true);
    expect(isAfter({ kind: "dated", date: "2025-03-02" }, asOf)).toBe(false);
    expect(isAfter({ kind: "undated" }, asOf)).toBe(false);
  });
});
