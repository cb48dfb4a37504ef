import { type ErrorTranslator, HttpError } from "../../http/index.js";
import { crashLoopMessage } from "../cell-trouble.js";
import { bodyTooLargeMessage, MessageTooLargeError } from "../message-limit.js";
import { InvalidUserNameError, UserExistsError } from "../user-store.js";

/** The host's size limits, named in the answer to a body or message that is too large. */
export interface SizeLimits {
  bodyLimit: number;
  messageLimit: number;
}

/**
 * The warden's own errors as HTTP errors, on every surface it serves (/api, /v1): a cell held after repeated
 * crashes says what happened and the way out (503); an oversize message or body names the field and the limit
 * (413); a bad user name is a 400 and a taken one a 409. The rest follows the code → status table.
 */
export function wardenErrors(limits: SizeLimits): ErrorTranslator {
  return (error) => {
    const held = crashLoopMessage(error);
    if (held) return new HttpError("unavailable", held, { cause: error });
    if (error instanceof MessageTooLargeError)
      return new HttpError("payload_too_large", error.message, {
        details: { field: error.field, bytes: error.bytes, limit_bytes: error.limit },
        field: error.field,
      });
    if ((error as { code?: unknown } | undefined)?.code === "FST_ERR_CTP_BODY_TOO_LARGE")
      return new HttpError("payload_too_large", bodyTooLargeMessage(limits.bodyLimit, limits.messageLimit), {
        details: { field: "body", limit_bytes: limits.bodyLimit },
        cause: error,
      });
    // UserStore's refusals keep codes of their own, which the CLI prints.
    if (error instanceof InvalidUserNameError) return new HttpError("validation_failed", error.message);
    if (error instanceof UserExistsError) return new HttpError("conflict", error.message);
    return undefined;
  };
}
