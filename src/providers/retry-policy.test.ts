import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_POLICY, parseRetryAfterMs, retryDelayMs, withRetries } from "./retry-policy.js";

describe("retry delays", () => {
  it("read Retry-After as seconds or as an HTTP date", () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    expect(parseRetryAfterMs("2", now)).toBe(2000);
    expect(parseRetryAfterMs("Wed, 01 Jan 2025 00:00:05 GMT", now)).toBe(5000);
    expect(parseRetryAfterMs("soon", now)).toBeUndefined();
  });

  it("prefer the server's Retry-After and give up when it asks for too long", () => {
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, 1, parseRetryAfterMs("3"))).toBe(3000);
    expect(
      retryDelayMs({ ...DEFAULT_RETRY_POLICY, maxRetryAfterMs: 1000 }, 1, parseRetryAfterMs("3")),
    ).toBeUndefined();
  });

  it("grow exponentially within the cap and stop after maxRetries", () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 100, maxDelayMs: 250, maxRetries: 3 };
    const top = () => 1;
    expect(retryDelayMs(policy, 1, undefined, top)).toBe(100);
    expect(retryDelayMs(policy, 2, undefined, top)).toBe(200);
    expect(retryDelayMs(policy, 3, undefined, top)).toBe(250);
    expect(retryDelayMs(policy, 4, undefined, top)).toBeUndefined();
  });
});

describe("withRetries", () => {
  const quick = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 1, maxDelayMs: 1, maxRetries: 2 };

  it("sends again after a retryable failure and counts the attempts", async () => {
    const answers = [
      { ok: false as const, failure: "503", retryable: true },
      { ok: true as const, value: "x" },
    ];
    const result = await withRetries(quick, async () => answers.shift() ?? { ok: true, value: "late" });
    expect(result).toEqual({ ok: true, value: "x", attempts: 2 });
  });

  it("returns a failure that cannot succeed later without trying again", async () => {
    let calls = 0;
    const result = await withRetries(quick, async () => {
      calls++;
      return { ok: false, failure: "401", retryable: false };
    });
    expect(result).toEqual({ ok: false, failure: "401", attempts: 1 });
    expect(calls).toBe(1);
  });

  it("gives up after maxRetries with the last failure", async () => {
    const result = await withRetries(quick, async (n) => ({
      ok: false,
      failure: `try ${n}`,
      retryable: true,
    }));
    expect(result).toEqual({ ok: false, failure: "try 3", attempts: 3 });
  });

  it("rejects with the abort reason while waiting", async () => {
    const controller = new AbortController();
    const slow = { ...quick, baseDelayMs: 60_000, maxDelayMs: 60_000 };
    const pending = withRetries(slow, async () => ({ ok: false, failure: "503", retryable: true }), {
      signal: controller.signal,
      beforeWait: () => controller.abort(new Error("stopped by the user")),
    });
    await expect(pending).rejects.toThrow("stopped by the user");
  });
});
