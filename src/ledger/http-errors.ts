import { type Envelope, type ErrorCode, fail } from "../contracts/index.js";
import {
  ConflictError,
  InvalidInputError,
  IronclawError,
  NotFoundError,
  ValidationError,
} from "../core/index.js";
import { EventIdConflictError, IllegalTransitionError, StreamVersionConflictError } from "./errors.js";

/** The HTTP status that goes with each envelope error code. */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  bad_request: 400,
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  illegal_transition: 409,
  payload_too_large: 413,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
  timeout: 504,
};

/** A request the ledger cannot even read: no body, a body that is not JSON, a bad header. */
export class BadRequestError extends IronclawError {
  override readonly name = "BadRequestError";
  constructor(message: string, options?: { cause?: unknown }) {
    super("bad_request", message, options);
  }
}

/** A request the ledger will not serve to this caller: cross-site, or without authentication off loopback. */
export class ForbiddenError extends IronclawError {
  override readonly name = "ForbiddenError";
  constructor(message: string) {
    super("forbidden", message);
  }
}

/** No bearer token, or one the authenticator refused. */
export class UnauthorizedError extends IronclawError {
  override readonly name = "UnauthorizedError";
  constructor(message: string) {
    super("unauthorized", message);
  }
}

/** A body in a format the ledger does not read (anything but application/json). */
export class UnsupportedMediaTypeError extends IronclawError {
  override readonly name = "UnsupportedMediaTypeError";
  constructor(message: string) {
    super("unsupported_media_type", message);
  }
}

export interface ErrorReply {
  status: number;
  body: Envelope<never>;
}

function reply(code: ErrorCode, message: string, details?: Record<string, unknown>): ErrorReply {
  return { status: HTTP_STATUS[code], body: fail(code, message, details) };
}

/**
 * The envelope for any error a route can meet. Bad input names the field by its JSON path; conflicts name the
 * event_id or stream; refused transitions name the run or order, its state and the event. Anything unexpected
 * is an internal error whose details stay in the log.
 */
export function errorReply(error: unknown): ErrorReply {
  if (error instanceof ValidationError) {
    const [first] = error.issues;
    const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more)` : "";
    const message = first ? `${first.path}: ${first.message}${more}` : error.message;
    return reply("validation_failed", message, { issues: error.issues });
  }
  if (error instanceof InvalidInputError)
    return reply("validation_failed", error.message, { issues: [{ path: error.path, message: error.rule }] });
  if (error instanceof IllegalTransitionError) {
    const { entity, id, state } = error.subject;
    return reply("illegal_transition", error.message, {
      [`${entity}_id`]: id,
      state,
      event_type: error.eventType,
      event_id: error.eventId,
    });
  }
  if (error instanceof EventIdConflictError)
    return reply("conflict", error.message, { event_id: error.eventId, position: error.position });
  if (error instanceof StreamVersionConflictError) {
    const { stream, expected, actual } = error;
    return reply("conflict", error.message, { [`${stream.kind}_id`]: stream.id, expected, actual });
  }
  if (error instanceof ConflictError) return reply("conflict", error.message);
  if (error instanceof NotFoundError) return reply("not_found", error.message);
  if (error instanceof BadRequestError) return reply("bad_request", error.message);
  if (error instanceof ForbiddenError) return reply("forbidden", error.message);
  if (error instanceof UnauthorizedError) return reply("unauthorized", error.message);
  // Not one of the envelope's shared codes (fail() builds only those); the wire allows any short token.
  if (error instanceof UnsupportedMediaTypeError)
    return {
      status: 415,
      body: { ok: false, data: null, error: { code: error.code, message: error.message } },
    };
  return frameworkError(error) ?? reply("internal", "internal error");
}

/** Errors fastify raises itself before a handler runs, recognised by their status code. */
function frameworkError(error: unknown): ErrorReply | undefined {
  if (!(error instanceof Error) || !("statusCode" in error) || typeof error.statusCode !== "number")
    return undefined;
  const status = error.statusCode;
  if (status === 413) return reply("payload_too_large", `request body is too large: ${error.message}`);
  if (status === 404) return reply("not_found", error.message);
  if (status >= 400 && status < 500) return { status, body: fail("bad_request", error.message) };
  return undefined;
}
