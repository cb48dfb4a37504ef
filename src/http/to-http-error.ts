import { InvalidInputError, IronclawError, ValidationError } from "../core/index.js";
import { HttpError, isHttpErrorCode } from "./http-error.js";

/** A surface's own errors as HTTP errors (the ledger's conflicts, the warden's size limits); undefined for others. */
export type ErrorTranslator = (error: unknown) => HttpError | undefined;

/**
 * Any error a route meets, as the HttpError it answers with. The surface's translators go first; then bad input
 * names the field by its path, a named error's code gives the status, and fastify's own refusals keep theirs.
 * Anything unexpected is an internal error whose details stay in the log.
 */
export function toHttpError(error: unknown, translators: readonly ErrorTranslator[] = []): HttpError {
  if (error instanceof HttpError) return error;
  for (const translate of translators) {
    const translated = translate(error);
    if (translated) return translated;
  }
  if (error instanceof ValidationError) {
    const [first] = error.issues;
    const more = error.issues.length > 1 ? ` (and ${error.issues.length - 1} more)` : "";
    const message = first ? `${first.path}: ${first.message}${more}` : error.message;
    return new HttpError("validation_failed", message, {
      details: { issues: error.issues },
      ...(first ? { field: first.path } : {}),
    });
  }
  if (error instanceof InvalidInputError)
    return new HttpError("validation_failed", error.message, {
      details: { issues: [{ path: error.path, message: error.rule }] },
      field: error.path,
    });
  // "internal" is left to the last line: its message may name what the caller must not see.
  if (error instanceof IronclawError && isHttpErrorCode(error.code) && error.code !== "internal")
    return new HttpError(error.code, error.message, { cause: error });
  return frameworkError(error) ?? new HttpError("internal", "internal error", { cause: error });
}

/** Errors fastify raises itself before a handler runs, recognised by their status code. */
function frameworkError(error: unknown): HttpError | undefined {
  if (!(error instanceof Error) || !("statusCode" in error) || typeof error.statusCode !== "number")
    return undefined;
  const status = error.statusCode;
  if (status === 413)
    return new HttpError("payload_too_large", `request body is too large: ${error.message}`, {
      cause: error,
    });
  if (status === 404) return new HttpError("not_found", error.message, { cause: error });
  if (status >= 400 && status < 500)
    return new HttpError("bad_request", error.message, { status, cause: error });
  return undefined;
}
