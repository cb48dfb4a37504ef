import { isIP } from "node:net";
import type { FastifyRequest } from "fastify";
import { HttpError } from "../http/index.js";

/** Answers whether a bearer token belongs to someone allowed to use the ledger. */
export type LedgerAuthenticator = (token: string) => Promise<boolean>;

/**
 * A host's own check of each request instead of bearer tokens (the warden's users, by token or session
 * cookie): throws an HttpError (401, 403, 404) to refuse. Health probes are checked too.
 */
export type LedgerAuthorizer = (request: FastifyRequest) => Promise<void>;

/**
 * What a request must show before the ledger reads its body. A web page the operator visits can send a
 * request to the ledger but not set its headers freely, so: writes must be application/json (a form or a
 * text/plain POST needs no CORS preflight; JSON does), a browser's cross-site request is refused by its
 * Origin and Sec-Fetch-Site headers, and without tokens the ledger answers only loopback connections that
 * name a loopback host (a DNS-rebinding page names its own host).
 */
export async function guardRequest(
  request: FastifyRequest,
  authenticate: LedgerAuthenticator | undefined,
  authorize?: LedgerAuthorizer,
): Promise<void> {
  refuseCrossSite(request);
  if (authorize) await authorize(request);
  else if (authenticate) {
    // Health probes carry no token and learn nothing but that the ledger is up.
    if (request.routeOptions.url?.endsWith("/health") !== true) await requireToken(request, authenticate);
  } else requireLoopback(request);
  if (request.method === "POST") requireJson(request);
}

function refuseCrossSite(request: FastifyRequest): void {
  const site = header(request, "sec-fetch-site");
  // same-site is still another origin (another port of localhost, a sibling subdomain); none is a typed URL.
  if (site !== undefined && site !== "same-origin" && site !== "none")
    throw new HttpError(
      "forbidden",
      `cross-origin requests are refused (Sec-Fetch-Site: ${site.slice(0, 100)})`,
    );
  const origin = header(request, "origin");
  if (origin === undefined) return;
  const own = ownOrigin(request);
  if (own === undefined || normalisedOrigin(origin) !== own)
    throw new HttpError(
      "forbidden",
      `requests from another origin are refused (Origin: ${origin.slice(0, 200)})`,
    );
}

async function requireToken(request: FastifyRequest, authenticate: LedgerAuthenticator): Promise<void> {
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(header(request, "authorization") ?? "");
  if (!match?.[1])
    throw tokenRefused("this ledger requires a bearer token: send Authorization: Bearer <token>");
  if (!(await authenticate(match[1])))
    throw tokenRefused("the bearer token is unknown, revoked or not allowed to use the ledger");
}

/** A 401 that tells the client which scheme to answer with. */
function tokenRefused(message: string): HttpError {
  return new HttpError("unauthorized", message, {
    headers: { "www-authenticate": 'Bearer realm="ironclaw-ledger"' },
  });
}

function requireLoopback(request: FastifyRequest): void {
  if (!isLoopbackAddress(request.socket.localAddress ?? ""))
    throw new HttpError(
      "forbidden",
      "this ledger has no authentication and answers loopback connections only; give it tokens to serve a network",
    );
  const host = hostName(header(request, "host") ?? "");
  if (host === undefined || !isLoopbackHost(host))
    throw new HttpError(
      "forbidden",
      `this ledger has no authentication and answers only requests for a loopback host (Host: ${(header(request, "host") ?? "").slice(0, 200)})`,
    );
}

function requireJson(request: FastifyRequest): void {
  const type = header(request, "content-type");
  const hasBody =
    request.headers["transfer-encoding"] !== undefined || Number(request.headers["content-length"] ?? 0) > 0;
  if (type === undefined && !hasBody) return; // nothing to parse: the route answers "body is required"
  const media = type?.split(";")[0]?.trim().toLowerCase();
  if (media !== "application/json")
    throw new HttpError(
      "unsupported_media_type",
      `content-type must be application/json (got ${type === undefined ? "none" : type.slice(0, 100)})`,
    );
}

/** True for 127.0.0.0/8, ::1 and IPv4 loopback wrapped in IPv6 (::ffff:127.0.0.1). */
export function isLoopbackAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").toLowerCase();
  const v4 = bare.startsWith("::ffff:") ? bare.slice(7) : bare;
  if (isIP(v4) === 4) return v4.startsWith("127.");
  return bare === "::1";
}

/** localhost and *.localhost resolve to loopback by definition (RFC 6761); otherwise a loopback address. */
export function isLoopbackHost(host: string): boolean {
  const name = host.toLowerCase().replace(/\.$/, "");
  return name === "localhost" || name.endsWith(".localhost") || isLoopbackAddress(name);
}

function ownOrigin(request: FastifyRequest): string | undefined {
  const host = header(request, "host");
  return host === undefined ? undefined : normalisedOrigin(`${request.protocol}://${host}`);
}

function normalisedOrigin(text: string): string | undefined {
  try {
    return new URL(text).origin;
  } catch {
    return undefined;
  }
}

function hostName(host: string): string | undefined {
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
}

function header(request: FastifyRequest, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
