import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_POLICY, parseRetryAfterMs, retryDelayMs } from "./retry-policy.js";

describe("retry delays", () => {
  it("read Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfterMs("2", now)).toBe(2000);
    expect(parseRetryAfterMs("Wed, 01 Jan 2025 00:00:05 GMT", now)).toBe(5000);
    expect(parseRetryAfterMs("soon", now)).toBeUndefined();
  });

  it("prefer the server's Retry-After and give up when it asks for too long", () => {
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 1, "3")).toBe(3000);
    expect(retryDelayMs({ ...DEFAULT_RETRY_POLICY, maxRetryAfterMs: 1000 }, 1, "3")).toBeUndefined();
  });

  it("grow exponentially within the cap and stop after maxRetries", () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 250, maxRetries: 3 };
    const top = () => 1;
    expect(retryDelayMs(policy, 1, null, 0, top)).toBe(100);
    expect(retryDelayMs(policy, 2, null, 0, top)).toBe(200);
    expect(retryDelayMs(policy, 3, null, 0, top)).toBe(250);
    expect(retryDelayMs(policy, 4, null, 0, top)).toBeUndefined();
  });
});
