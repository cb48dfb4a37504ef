import { describe, expect, it } from "vitest";
import { checkCronExpression, isTimeZone } from "./cron-expression.js";

describe("checkCronExpression", () => {
  it.each([
    "0 7 * * *",
    "*/15 9-17 * * MON-FRI",
    "0 0 9 L JAN,APR,JUL,OCT ?",
    "30 */5 * * * *",
    "0 9 * * 1#1",
    "0 12 15W * *",
    "  0 7 * * *  ",
    "@daily",
    "@HOURLY",
  ])("accepts %s", (expression) => {
    expect(checkCronExpression(expression)).toBeUndefined();
  });

  it("counts the fields it was given", () => {
    expect(checkCronExpression("0 7 * *")).toMatch(/5 fields .* not 4$/);
    expect(checkCronExpression("0 0 7 * * * 2026")).toMatch(/not 7$/);
    expect(checkCronExpression("")).toMatch(/not 0$/);
  });

  it("names the field with a character it does not allow", () => {
    expect(checkCronExpression("0 seven * * *")).toBe('has an invalid hours field "seven"');
    expect(checkCronExpression("0 7 * * mon;rm")).toBe('has an invalid day of week field "mon;rm"');
    expect(checkCronExpression("L 0 7 * * *")).toBe('has an invalid seconds field "L"');
  });

  it("reads six fields as seconds first", () => {
    expect(checkCronExpression("0 0 7 L * *")).toBeUndefined();
    expect(checkCronExpression("0 7 L * * *")).toBe('has an invalid hours field "L"');
  });

  it("rejects a nickname croner does not know", () => {
    expect(checkCronExpression("@fortnightly")).toMatch(/^uses an unknown nickname/);
  });
});

describe("isTimeZone", () => {
  it("knows IANA names and UTC", () => {
    expect(isTimeZone("Europe/Berlin")).toBe(true);
    expect(isTimeZone("UTC")).toBe(true);
  });

  it("refuses names the time zone database does not have", () => {
    expect(isTimeZone("Europe/Atlantis")).toBe(false);
    expect(isTimeZone("")).toBe(false);
  });
});
