import { RateLimiter } from "../rate-limit.js";

export interface LoginLockoutOptions {
  /** Wrong credentials a client address, and guesses one token, may make per minute before being refused. */
  failuresPerMinute: number;
  now?: () => number;
}

/** A sign-in attempt's end: signed in, or refused (with the wait when it was the lockout that refused it). */
export type LoginOutcome<T> =
  | { ok: true; value: T; fromLockedAddress: boolean }
  | { ok: false; retryAfterSeconds?: number };

/**
 * The lockout on sign-ins with a token (POST /api/auth/login, a bearer token on any request) or a login link.
 * Only failures count; the rule:
 *
 * 1. Failures are counted per client address and, for a token whose id exists, per token id (every address
 *    together). An id that does not exist is counted against the address only: such a guess can never
 *    succeed, and its made-up ids must not fill the per-token table and push real ids' counts out.
 * 2. A token id over its limit is refused without its secret being checked, from any address: that is what
 *    bounds guessing at one token, even by an attacker with a thousand addresses (an IPv6 /64 is 2^64 of them).
 *    Whoever knows a token's id (its first 16 hex digits) can so hold its owner off for a minute; the id is
 *    random and only ever shown as part of the token, so someone who has it should rotate the token anyway.
 * 3. An address over its limit is locked, yet a token whose id exists and is under its own limit is still
 *    checked: a correct token signs in, so a neighbour behind the same NAT (or an attacker in it) cannot lock a
 *    user out. A wrong one is refused with the same 429 as before and counted again, for the address and the
 *    token. The locked address learns nothing new: it gets 429 whether the id exists or not (only the time a
 *    check takes differs, as it always did), the secret is 256 random bits, and each guess at a real token
 *    still costs that token one of its few attempts a minute: locked or not, no faster than before.
 *    A made-up id or a login link from a locked address is refused without being checked.
 * 4. Refusals keep counting for the address (one that keeps trying stays locked until it stops), while a token
 *    counts only wrong secrets actually checked.
 */
export class LoginLockout {
  private readonly byAddress: RateLimiter;
  private readonly byToken: RateLimiter;

  constructor(options: LoginLockoutOptions) {
    const common = {
      limit: options.failuresPerMinute,
      windowMs: 60_000,
      ...(options.now ? { now: options.now } : {}),
    };
    this.byAddress = new RateLimiter(common);
    this.byToken = new RateLimiter(common);
  }

  /**
   * Runs `check` when the rule lets the attempt be checked and counts it when it fails. `tokenId` is the id of
   * an existing token the credential names (UserStore.tokenIdIfKnown), undefined for anything else.
   */
  async attempt<T>(
    address: string,
    tokenId: string | undefined,
    check: () => Promise<T | undefined> | T | undefined,
  ): Promise<LoginOutcome<T>> {
    if (tokenId !== undefined) {
      const token = this.byToken.peek(tokenId);
      if (!token.allowed) return this.refuse(address, token.retryAfterSeconds);
    }
    const place = this.byAddress.peek(address);
    const locked = place.allowed ? undefined : place.retryAfterSeconds;
    if (locked !== undefined && tokenId === undefined) return this.refuse(address, locked);
    const value = await check();
    if (value !== undefined) return { ok: true, value, fromLockedAddress: locked !== undefined };
    this.byAddress.record(address);
    if (tokenId !== undefined) this.byToken.record(tokenId);
    return locked === undefined ? { ok: false } : { ok: false, retryAfterSeconds: locked };
  }

  /**
   * Refused unchecked: counted for the address, so one that keeps hammering stays locked, but not for the
   * token, whose owner retrying with the right token would otherwise keep it locked.
   */
  private refuse(address: string, retryAfterSeconds: number): LoginOutcome<never> {
    this.byAddress.record(address);
    return { ok: false, retryAfterSeconds };
  }
}
