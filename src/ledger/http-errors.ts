import { HttpError, toHttpError } from "../http/index.js";
import { EventIdConflictError, IllegalTransitionError, StreamVersionConflictError } from "./errors.js";

/**
 * The ledger's own errors as HTTP errors, with the facts a writer acts on in error.details: refused transitions
 * name the run or order, its state and the event; conflicts name the event_id or the stream and its versions.
 */
function ledgerHttpError(error: unknown): HttpError | undefined {
  if (error instanceof IllegalTransitionError) {
    const { entity, id, state } = error.subject;
    return new HttpError("illegal_transition", error.message, {
      details: { [`${entity}_id`]: id, state, event_type: error.eventType, event_id: error.eventId },
    });
  }
  if (error instanceof EventIdConflictError)
    return new HttpError("conflict", error.message, {
      details: { event_id: error.eventId, position: error.position },
    });
  if (error instanceof StreamVersionConflictError) {
    const { stream, expected, actual } = error;
    return new HttpError("conflict", error.message, {
      details: { [`${stream.kind}_id`]: stream.id, expected, actual },
    });
  }
  return undefined;
}

/** Any error a ledger route meets, as the HttpError its envelope answer is made from. */
export function ledgerHttpErrorOf(error: unknown): HttpError {
  return toHttpError(error, [ledgerHttpError]);
}
