import type { FastifyRequest } from "fastify";
import { type Access, HttpError } from "../../http/index.js";
import type { UserStore } from "../user-store.js";
import { SESSION_COOKIE, type WebSessions } from "../web-sessions.js";
import type { LoginLockout } from "./login-lockout.js";

export interface Auth {
  userId: string;
  admin: boolean;
  via: "token" | "cookie";
}

const SIGN_IN =
  "sign in: send Authorization: Bearer <token> (from `ironclaw user add`) or use the login link";

/** A 401: no credential, or one that no longer signs anybody in; by default, how to sign in. */
export function notSignedIn(message = SIGN_IN): HttpError {
  return new HttpError("unauthorized", message);
}

/** A 429 for an address locked out after failed sign-ins, with the Retry-After the lockout gives. */
export function tooManyAttempts(retryAfterSeconds: number): HttpError {
  return new HttpError("rate_limited", `too many attempts: try again in ${retryAfterSeconds} s`, {
    headers: { "retry-after": String(retryAfterSeconds) },
  });
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** Reads one cookie from the Cookie header without a parser dependency. */
export function cookieValue(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

export interface Authenticator {
  /** The caller, or undefined; throws for a bad token or a cross-site cookie request. */
  identify(request: FastifyRequest): Promise<Auth | undefined>;
  /**
   * Whether the credential `auth` was identified by (the same request's token or cookie) still signs in that
   * user: false once the token is rotated, the session ended or the user removed. Counts nothing toward the
   * lockout: it re-checks a connection that is already open (routes/ws-route.ts).
   */
  stillSignedIn(request: FastifyRequest, auth: Auth): Promise<boolean>;
  /** Whether a browser Origin may drive this warden (WebSocket upgrades, cookie-authenticated writes). */
  originAllowed(origin: string | undefined): boolean;
}

/**
 * Bearer tokens for API clients, an HttpOnly SameSite=Strict cookie for the browser. A cookie travels by
 * itself, so a state-changing request carrying one must also come from an allowed Origin: a foreign page can
 * neither post to the API nor open the WebSocket in the user's name.
 */
export function createAuthenticator(deps: {
  users: UserStore;
  webSessions: WebSessions;
  /** A bearer token is a sign-in like POST /api/auth/login: wrong ones count, and lock, the same way. */
  lockout: LoginLockout;
  /** Read on every check: the daemon adds its own origins once it knows its port. */
  origins: readonly string[];
}): Authenticator {
  const normal = (o: string) => o.replace(/\/+$/, "").toLowerCase();
  const originAllowed = (origin: string | undefined) =>
    origin !== undefined && deps.origins.some((o) => normal(o) === normal(origin));
  return {
    originAllowed,
    async stillSignedIn(request, auth) {
      if (auth.via === "token") {
        const token = bearerToken(request.headers.authorization);
        return token !== undefined && (await deps.users.authenticate(token))?.userId === auth.userId;
      }
      const cookie = cookieValue(request.headers.cookie, SESSION_COOKIE);
      return cookie !== undefined && deps.webSessions.resolve(cookie)?.userId === auth.userId;
    },
    async identify(request) {
      const header = request.headers.authorization;
      if (header !== undefined) {
        const token = bearerToken(header);
        if (!token) throw notSignedIn("the Authorization header must be `Bearer <token>`");
        const outcome = await deps.lockout.attempt(request.ip, deps.users.tokenIdIfKnown(token), () =>
          deps.users.authenticate(token),
        );
        if (outcome.ok) return { userId: outcome.value.userId, admin: outcome.value.admin, via: "token" };
        if (outcome.retryAfterSeconds !== undefined) throw tooManyAttempts(outcome.retryAfterSeconds);
        throw notSignedIn("the token is not valid (revoked, rotated or mistyped)");
      }
      const cookie = cookieValue(request.headers.cookie, SESSION_COOKIE);
      if (cookie === undefined) return undefined;
      const session = deps.webSessions.resolve(cookie);
      if (!session) return undefined;
      if (!SAFE_METHODS.has(request.method) && !originAllowed(request.headers.origin)) {
        throw new HttpError(
          "forbidden",
          `requests signed in by cookie must come from the UI's origin (got ${request.headers.origin ?? "no Origin header"})`,
        );
      }
      return { userId: session.userId, admin: session.admin, via: "cookie" };
    },
  };
}

function bearerToken(header: string | undefined): string | undefined {
  return header === undefined ? undefined : /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}

export async function requireAccess(
  authenticator: Authenticator,
  request: FastifyRequest,
  access: Access,
): Promise<Auth> {
  if (access === "none") return (await authenticator.identify(request).catch(() => undefined)) ?? anonymous;
  const auth = await authenticator.identify(request);
  if (!auth) throw notSignedIn();
  if (access === "admin" && !auth.admin) throw new HttpError("forbidden", "this needs an admin");
  return auth;
}

const anonymous: Auth = { userId: "", admin: false, via: "token" };
