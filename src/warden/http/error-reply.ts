import { type ErrorCode, fail } from "../../contracts/index.js";
import { IronclawError } from "../../core/index.js";
import { errorReply, HTTP_STATUS } from "../../ledger/index.js";
import { RateLimitedError } from "./auth.js";

/**
 * The { ok:false, error } answer and HTTP status for any error a warden route meets: bad input names the
 * field (400), missing or bad credentials 401, refusals 403, unknown things 404, conflicts 409, oversize
 * bodies 413, too many login attempts 429 with Retry-After; anything unexpected is a 500 whose details stay
 * in the log.
 */
export function wardenErrorReply(error: unknown): { status: number; body: unknown; retryAfter?: number } {
  if (error instanceof RateLimitedError) {
    return { status: 429, body: fail("rate_limited", error.message), retryAfter: error.retryAfterSeconds };
  }
  if (
    error instanceof IronclawError &&
    error.code in HTTP_STATUS &&
    !("issues" in error) &&
    error.code !== "invalid_input"
  ) {
    const code = error.code as ErrorCode;
    if (["unauthorized", "forbidden", "unavailable", "rate_limited", "timeout"].includes(code))
      return { status: HTTP_STATUS[code], body: fail(code, error.message) };
  }
  if (error instanceof IronclawError && /^(invalid_user_name|user_exists)$/.test(error.code)) {
    return {
      status: error.code === "user_exists" ? 409 : 400,
      body: fail(error.code === "user_exists" ? "conflict" : "validation_failed", error.message),
    };
  }
  return errorReply(error);
}
