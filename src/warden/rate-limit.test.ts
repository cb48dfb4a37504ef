import { describe, expect, it } from "vitest";
import { RateLimiter } from "./rate-limit.js";

describe("RateLimiter", () => {
  it("blocks the 11th attempt in a minute and lets the client in once the window has passed", () => {
    let clock = 1_000_000;
    const limiter = new RateLimiter({ now: () => clock });
    for (let i = 0; i < 10; i++) {
      expect(limiter.check("203.0.113.7")).toEqual({ allowed: true });
      clock += 1_000;
    }
    expect(limiter.check("203.0.113.7")).toEqual({ allowed: false, retryAfterSeconds: 50 });
    clock += 49_000;
    expect(limiter.check("203.0.113.7").allowed).toBe(false);
    clock += 1_000;
    expect(limiter.check("203.0.113.7")).toEqual({ allowed: true });
    expect(limiter.check("203.0.113.7")).toEqual({ allowed: false, retryAfterSeconds: 1 });
  });

  it("counts each key on its own", () => {
    const limiter = new RateLimiter({ limit: 2, now: () => 0 });
    expect(limiter.check("a").allowed).toBe(true);
    expect(limiter.check("a").allowed).toBe(true);
    expect(limiter.check("a").allowed).toBe(false);
    expect(limiter.check("b").allowed).toBe(true);
  });

  it("refused attempts do not extend the wait", () => {
    let clock = 0;
    const limiter = new RateLimiter({ limit: 1, windowMs: 10_000, now: () => clock });
    limiter.check("a");
    for (clock = 1_000; clock < 10_000; clock += 1_000) expect(limiter.check("a").allowed).toBe(false);
    expect(limiter.check("a").allowed).toBe(true);
  });

  it("remembers at most maxKeys keys, forgetting the stalest", () => {
    const limiter = new RateLimiter({ limit: 1, maxKeys: 3, now: () => 0 });
    for (const key of ["a", "b", "c", "d"]) limiter.check(key);
    expect(limiter.size).toBe(3);
    expect(limiter.check("b").allowed).toBe(false);
    expect(limiter.check("a").allowed).toBe(true);
  });

  it("peek counts nothing; record counts failures past the limit, so a key that keeps failing stays refused", () => {
    let clock = 0;
    const limiter = new RateLimiter({ limit: 2, windowMs: 10_000, now: () => clock });
    for (let i = 0; i < 5; i++) expect(limiter.peek("a")).toEqual({ allowed: true });
    expect(limiter.size).toBe(0);
    limiter.record("a");
    limiter.record("a");
    expect(limiter.peek("a")).toEqual({ allowed: false, retryAfterSeconds: 10 });
    clock = 9_000;
    limiter.record("a");
    limiter.record("a");
    clock = 10_500;
    // Without the failures at 9 s the first two would have left the window by now.
    expect(limiter.peek("a")).toEqual({ allowed: false, retryAfterSeconds: 9 });
    clock = 19_000;
    expect(limiter.peek("a")).toEqual({ allowed: true });
  });
});
