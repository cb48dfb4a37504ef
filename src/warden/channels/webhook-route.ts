import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { sendEnvelopeError, toHttpError } from "../../http/index.js";

/**
 * Makes this plugin's routes (Fastify scopes parsers to a plugin) take bodies of `types` as the bytes that were
 * sent: a platform signs those bytes, so they are checked before anything is parsed.
 */
export function keepRawBodies(app: FastifyInstance, types: string[]): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(types, { parseAs: "buffer" }, (_request, body, done) => done(null, body));
}

/** A webhook's errors in the `{ ok, data, error }` envelope: a malformed body names its field (400), a 5xx is logged. */
export function webhookErrors(what: string) {
  return (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    const answer = toHttpError(error);
    if (answer.status >= 500) request.log.error({ err: error }, `${what} failed`);
    return sendEnvelopeError(reply, answer);
  };
}

/** A request header's one value, or undefined (absent or repeated). */
export function headerOf(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return typeof value === "string" ? value : undefined;
}

/** The raw body a route kept with keepRawBodies; empty when there was none. */
export function rawBodyOf(request: FastifyRequest): Buffer {
  return Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
}
