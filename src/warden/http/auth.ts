import type { FastifyRequest } from "fastify";
import { IronclawError } from "../../core/index.js";
import type { UserStore } from "../user-store.js";
import { SESSION_COOKIE, type WebSessions } from "../web-sessions.js";

/** Who may call a route: anybody, any signed-in user, or an admin. */
export type Access = "none" | "user" | "admin";

export interface Auth {
  userId: string;
  admin: boolean;
  via: "token" | "cookie";
}

export class UnauthorizedError extends IronclawError {
  override readonly name = "UnauthorizedError";
  constructor(
    message = "sign in: send Authorization: Bearer <token> (from `ironclaw user add`) or use the login link",
  ) {
    super("unauthorized", message);
  }
}

export class ForbiddenError extends IronclawError {
  override readonly name = "ForbiddenError";
  constructor(message: string) {
    super("forbidden", message);
  }
}

export class RateLimitedError extends IronclawError {
  override readonly name = "RateLimitedError";
  constructor(readonly retryAfterSeconds: number) {
    super("rate_limited", `too many attempts: try again in ${retryAfterSeconds} s`);
  }
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
  /** Read on every check: the daemon adds its own origins once it knows its port. */
  origins: readonly string[];
}): Authenticator {
  const normal = (o: string) => o.replace(/\/+$/, "").toLowerCase();
  const originAllowed = (origin: string | undefined) =>
    origin !== undefined && deps.origins.some((o) => normal(o) === normal(origin));
  return {
    originAllowed,
    async identify(request) {
      const header = request.headers.authorization;
      if (header !== undefined) {
        const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
        if (!match?.[1]) throw new UnauthorizedError("the Authorization header must be `Bearer <token>`");
        const who = await deps.users.authenticate(match[1]);
        if (!who) throw new UnauthorizedError("the token is not valid (revoked, rotated or mistyped)");
        return { userId: who.userId, admin: who.admin, via: "token" };
      }
      const cookie = cookieValue(request.headers.cookie, SESSION_COOKIE);
      if (cookie === undefined) return undefined;
      const session = deps.webSessions.resolve(cookie);
      if (!session) return undefined;
      if (!SAFE_METHODS.has(request.method) && !originAllowed(request.headers.origin)) {
        throw new ForbiddenError(
          `requests signed in by cookie must come from the UI's origin (got ${request.headers.origin ?? "no Origin header"})`,
        );
      }
      return { userId: session.userId, admin: session.admin, via: "cookie" };
    },
  };
}

export async function requireAccess(
  authenticator: Authenticator,
  request: FastifyRequest,
  access: Access,
): Promise<Auth> {
  if (access === "none") return (await authenticator.identify(request).catch(() => undefined)) ?? anonymous;
  const auth = await authenticator.identify(request);
  if (!auth) throw new UnauthorizedError();
  if (access === "admin" && !auth.admin) throw new ForbiddenError("this needs an admin");
  return auth;
}

const anonymous: Auth = { userId: "", admin: false, via: "token" };
