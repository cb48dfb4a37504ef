import { type ErrorCode, fail } from "../../contracts/index.js";
import { IronclawError } from "../../core/index.js";
import { errorReply, HTTP_STATUS } from "../../ledger/index.js";
import { crashLoopMessage } from "../cell-trouble.js";
import { bodyTooLargeMessage, MessageTooLargeError } from "../message-limit.js";
import { RateLimitedError } from "./auth.js";

/** The host's size limits, named in the answer to a body or message that is too large. */
export interface SizeLimits {
  bodyLimit: number;
  messageLimit: number;
}

/**
 * The { ok:false, error } answer and HTTP status for any error a warden route meets: bad input names the
 * field (400), missing or bad credentials 401, refusals 403, unknown things 404, conflicts 409, oversize
 * bodies and messages 413 (naming the limit), too many login attempts 429 with Retry-After; anything unexpected is a 500 whose details stay
 * in the log.
 */
export function wardenErrorReply(
  error: unknown,
  limits?: SizeLimits,
): { status: number; body: unknown; retryAfter?: number } {
  // A user's cell held after repeated crashes: any route that needs it says what happened and the way out.
  const held = crashLoopMessage(error);
  if (held) return { status: 503, body: fail("unavailable", held) };
  if (error instanceof MessageTooLargeError) {
    return {
      status: 413,
      body: fail("payload_too_large", error.message, {
        field: error.field,
        bytes: error.bytes,
        limit_bytes: error.limit,
      }),
    };
  }
  if (limits && (error as { code?: unknown }).code === "FST_ERR_CTP_BODY_TOO_LARGE") {
    return {
      status: 413,
      body: fail("payload_too_large", bodyTooLargeMessage(limits.bodyLimit, limits.messageLimit), {
        field: "body",
        limit_bytes: limits.bodyLimit,
      }),
    };
  }
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
