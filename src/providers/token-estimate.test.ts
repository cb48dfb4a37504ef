import { describe, expect, it } from "vitest";
import { estimateTextTokens, OutputMeter } from "./token-estimate.js";

describe("the output meter", () => {
  it("passes its limit only once the streamed output's estimate is above it", () => {
    const meter = new OutputMeter(10);
    expect(meter.add("a".repeat(30))).toBe(false);
    expect(meter.tokens).toBe(10);
    expect(meter.add("b")).toBe(true);
    expect(meter.tokens).toBe(11);
    expect(meter.passed).toBe(true);
  });

  it("sums bytes before rounding, so many one-token deltas count as their text does", () => {
    const meter = new OutputMeter(1000);
    for (let i = 0; i < 300; i++) meter.add("ab ");
    expect(meter.tokens).toBe(estimateTextTokens("ab ".repeat(300)));
    expect(meter.tokens).toBe(300);
  });

  it("counts multibyte text by its UTF-8 bytes, as the prompt estimate does", () => {
    const meter = new OutputMeter(1);
    expect(meter.add("日本")).toBe(true);
    expect(meter.tokens).toBe(2);
  });
});
