import { describe, expect, it } from "vitest";
import { LoginLockout } from "./login-lockout.js";

const RIGHT = "right";
/** A check as UserStore.authenticate answers it: the user for the right secret, nothing otherwise. */
const check = (secret: string) => () => (secret === RIGHT ? "alice" : undefined);

function lockout(clock = { now: 0 }) {
  return new LoginLockout({ failuresPerMinute: 3, now: () => clock.now });
}

describe("the login lockout", () => {
  it("locks an address after its failures, and the wait is given", async () => {
    const l = lockout();
    for (let i = 0; i < 3; i++)
      expect(await l.attempt("10.0.0.1", undefined, check("wrong"))).toEqual({ ok: false });
    expect(await l.attempt("10.0.0.1", undefined, check("wrong"))).toEqual({
      ok: false,
      retryAfterSeconds: 60,
    });
    // Another address is not affected.
    expect(await l.attempt("10.0.0.2", "t1", check(RIGHT))).toMatchObject({
      ok: true,
      fromLockedAddress: false,
    });
  });

  it("successes are not counted", async () => {
    const l = lockout();
    for (let i = 0; i < 10; i++) expect((await l.attempt("10.0.0.1", "t1", check(RIGHT))).ok).toBe(true);
    expect(await l.attempt("10.0.0.1", "t1", check("wrong"))).toEqual({ ok: false });
  });

  it("lets a correct token through from a locked address; wrong ones stay refused and keep counting", async () => {
    const clock = { now: 0 };
    const l = lockout(clock);
    for (let i = 0; i < 3; i++) await l.attempt("10.0.0.1", undefined, check("wrong"));
    let checks = 0;
    const counted = (secret: string) => () => {
      checks++;
      return check(secret)();
    };
    expect(await l.attempt("10.0.0.1", "t1", counted(RIGHT))).toEqual({
      ok: true,
      value: "alice",
      fromLockedAddress: true,
    });
    expect(await l.attempt("10.0.0.1", "t1", counted("wrong"))).toEqual({ ok: false, retryAfterSeconds: 60 });
    // A made-up token id (or a login link) from the locked address is refused without being checked.
    expect(await l.attempt("10.0.0.1", undefined, counted(RIGHT))).toMatchObject({ ok: false });
    expect(checks).toBe(2);
    // The refusals kept counting: 55 s later the address is still locked by them.
    clock.now = 55_000;
    expect(await l.attempt("10.0.0.1", undefined, check("wrong"))).toMatchObject({
      ok: false,
      retryAfterSeconds: 5,
    });
  });

  it("limits guesses at one token from every address together, and checks no secret past the limit", async () => {
    const l = lockout();
    let checks = 0;
    const counted = (secret: string) => () => {
      checks++;
      return check(secret)();
    };
    // Three addresses, one wrong guess each: each address is far from locked, the token has had its three.
    for (const address of ["10.0.0.1", "10.0.0.2", "10.0.0.3"])
      expect(await l.attempt(address, "t1", counted("wrong"))).toEqual({ ok: false });
    expect(await l.attempt("10.0.0.4", "t1", counted("wrong"))).toEqual({ ok: false, retryAfterSeconds: 60 });
    expect(await l.attempt("10.0.0.4", "t1", counted(RIGHT))).toEqual({ ok: false, retryAfterSeconds: 60 });
    expect(checks).toBe(3);
    // Another token is not affected.
    expect((await l.attempt("10.0.0.4", "t2", check(RIGHT))).ok).toBe(true);
  });

  it("a locked address cannot guess faster than an unlocked one: each real token takes three wrong secrets a minute", async () => {
    const clock = { now: 0 };
    const l = lockout(clock);
    let checks = 0;
    const guess = () => {
      checks++;
      return undefined;
    };
    // An attacker floods from one address at token t1 for a minute and a half.
    for (clock.now = 0; clock.now < 90_000; clock.now += 100) await l.attempt("10.0.0.1", "t1", guess);
    expect(checks).toBe(6);
  });
});
