import { createHash, createPublicKey, type KeyObject, timingSafeEqual, verify } from "node:crypto";
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ValidationError } from "../../core/index.js";
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

/** A signed request older (or newer) than this is refused: a captured one cannot be replayed later. */
export const SIGNATURE_MAX_AGE_SECONDS = 5 * 60;

/** Why a signed request's timestamp header (seconds since the epoch) is refused: not a number, or over 5 minutes off. */
export function staleTimestamp(header: string, value: string, nowSeconds: number): string | undefined {
  if (!/^\d{1,12}$/.test(value)) return `${header} is not a number of seconds`;
  if (Math.abs(nowSeconds - Number(value)) > SIGNATURE_MAX_AGE_SECONDS)
    return `${header} is more than 5 minutes from now`;
  return undefined;
}

/** Whether two secrets or signatures are the same, in time that does not depend on where they differ (or their lengths). */
export function sameSecret(given: string, expected: string): boolean {
  return timingSafeEqual(digest(given), digest(expected));
}

/** An Ed25519 public key given as its 32 bytes in hex (how Discord shows an application's key). */
export function ed25519PublicKey(hex: string): KeyObject {
  // A raw Ed25519 key as a JWK: its 32 bytes, base64url.
  return createPublicKey({
    key: { kty: "OKP", crv: "Ed25519", x: Buffer.from(hex, "hex").toString("base64url") },
    format: "jwk",
  });
}

/** Whether `signatureHex` (64 bytes, hex) is `key`'s Ed25519 signature of `message`; anything not hex of that length is not. */
export function ed25519Signed(key: KeyObject, message: Buffer, signatureHex: string): boolean {
  if (!/^[0-9a-f]{128}$/i.test(signatureHex)) return false;
  return verify(null, message, key, Buffer.from(signatureHex, "hex"));
}

function digest(text: string): Buffer {
  return createHash("sha256").update(text).digest();
}

/** A webhook body as JSON; a ValidationError naming `contract` when it is not JSON at all. */
export function jsonBody(raw: Buffer, contract: string, what = "must be JSON"): unknown {
  try {
    return JSON.parse(raw.toString("utf8"));
  } catch {
    throw new ValidationError(contract, [{ path: "$", message: what, code: "custom" }]);
  }
}
