import type { FastifyReply } from "fastify";
import type { Envelope } from "../contracts/index.js";
import type { HttpError } from "./http-error.js";

/**
 * The `{ ok: false, data: null, error }` envelope of seed 000 §0 (the ledger, the warden's /api, webhooks).
 * Built by hand rather than with fail(): the wire allows any short code, and 415 has none of fail()'s own.
 */
export function envelopeError(error: HttpError): Envelope<never> {
  const { code, message, details } = error;
  return {
    ok: false,
    data: null,
    error: details === undefined ? { code, message } : { code, message, details },
  };
}

/** Answers with the error's status, headers and envelope. */
export function sendEnvelopeError(reply: FastifyReply, error: HttpError): FastifyReply {
  for (const [name, value] of Object.entries(error.headers)) void reply.header(name, value);
  return reply.code(error.status).send(envelopeError(error));
}
