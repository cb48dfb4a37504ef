import type { ErrorCode } from "../contracts/index.js";
import { IronclawError } from "../core/index.js";

/** The codes an HTTP answer carries: the envelope's shared codes, and the two statuses only HTTP needs. */
export type HttpErrorCode = ErrorCode | "unsupported_media_type" | "bad_gateway";

/** The HTTP status that goes with each error code, on every surface (ledger, warden /api, /v1). */
export const HTTP_STATUS: Record<HttpErrorCode, number> = {
  bad_request: 400,
  validation_failed: 400,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  illegal_transition: 409,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  internal: 500,
  bad_gateway: 502,
  unavailable: 503,
  timeout: 504,
};

export function isHttpErrorCode(code: string): code is HttpErrorCode {
  return Object.hasOwn(HTTP_STATUS, code);
}

export interface HttpErrorOptions {
  /** Only where the status is not the code's own: a framework's 4xx passed on as it came. */
  status?: number;
  /** Machine-readable facts for the envelope's error.details (the issues, the conflicting event, a limit). */
  details?: Record<string, unknown>;
  /** The request field at fault, where one is (OpenAI's `param`). */
  field?: string;
  /** A finer code than `code` for clients that switch on one (OpenAI's `code`: model_not_found, …). */
  reason?: string;
  /** OpenAI's error `type`, where it is not the one the status implies (budget_exceeded, agent_error). */
  type?: string;
  /** Headers the answer carries: Retry-After, WWW-Authenticate. */
  headers?: Record<string, string>;
  cause?: unknown;
}

/**
 * The one error an HTTP route throws to refuse a request: a code from the table above (which gives the status)
 * and a message for people. Each surface formats it its own way (envelope-format.ts, openai-format.ts); other
 * errors are turned into one by toHttpError.
 */
export class HttpError extends IronclawError {
  override readonly name = "HttpError";
  declare readonly code: HttpErrorCode;
  readonly status: number;
  readonly details: Record<string, unknown> | undefined;
  readonly field: string | undefined;
  readonly reason: string | undefined;
  readonly type: string | undefined;
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: HttpErrorCode, message: string, options: HttpErrorOptions = {}) {
    super(code, message, options.cause === undefined ? undefined : { cause: options.cause });
    this.status = options.status ?? HTTP_STATUS[code];
    this.details = options.details;
    this.field = options.field;
    this.reason = options.reason;
    this.type = options.type;
    this.headers = options.headers ?? {};
  }
}

/** The 404 for a path no route serves, the same on every surface. */
export function noRouteError(request: { method: string; url: string }): HttpError {
  return new HttpError("not_found", `no route ${request.method} ${request.url.split("?")[0]}`);
}
