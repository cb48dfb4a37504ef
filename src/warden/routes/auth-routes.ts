import { z } from "zod";
import { logoutAnswerSchema, meSchema, tokenLoginBodySchema } from "../../contracts/index.js";
import { defineRoute } from "../http/api-route.js";
import { cookieValue, RateLimitedError, UnauthorizedError } from "../http/auth.js";
import type { WardenContext } from "../warden-context.js";
import { SESSION_COOKIE } from "../web-sessions.js";

/**
 * Signing in: the one-time link printed at start (Jupyter-style), or a user token traded for a browser
 * session. Both are rate-limited per client address; both end in an HttpOnly SameSite=Strict cookie.
 */
export function authRoutes(ctx: WardenContext) {
  const ttlMs = ctx.config.auth.session_ttl_hours * 3_600_000;
  const secure = (ctx.config.server.public_url ?? "").startsWith("https:");
  const sessionCookie = (value: string, maxAgeSeconds: number) =>
    `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? "; Secure" : ""}`;
  const limit = (ip: string) => {
    const decision = ctx.loginLimiter.check(ip);
    if (!decision.allowed) throw new RateLimitedError(decision.retryAfterSeconds);
  };
  const startSession = (userId: string, admin: boolean) => {
    const session = ctx.webSessions.create(userId, ttlMs);
    ctx.audit.record({ userId, actor: `user:${userId}`, action: "login", detail: { admin } });
    return sessionCookie(session.id, Math.floor(ttlMs / 1000));
  };
  return [
    defineRoute({
      method: "GET",
      url: "/login",
      summary: "Redeem a one-time login link: sets the session cookie and opens the UI",
      tag: "auth",
      access: "none",
      query: z.looseObject({ code: z.string().min(1, "must not be empty") }),
      async handler({ query, request, reply }) {
        limit(request.ip);
        const userId = ctx.loginLinks.redeem(query.code);
        if (!userId) {
          const why =
            "This login link was already used or has expired. Ask the operator for a new one (ironclaw user login-link <name>), or sign in with your API token.";
          // A person followed this link in a browser: answer with a page, not JSON.
          if ((request.headers.accept ?? "").includes("text/html")) {
            return reply
              .code(401)
              .header("content-type", "text/html; charset=utf-8")
              .header("content-security-policy", "default-src 'none'; base-uri 'none'; form-action 'none'")
              .send(
                `<!doctype html><meta charset="utf-8"><title>IronClaw: sign-in link expired</title><h1>Sign-in link expired</h1><p>${why}</p><p><a href="${ctx.config.ui.path}/">Open IronClaw</a></p>`,
              );
          }
          throw new UnauthorizedError(why);
        }
        const user = ctx.users.get(userId);
        if (!user) throw new UnauthorizedError("the user of this login link no longer exists");
        reply.header("set-cookie", startSession(user.id, user.admin));
        return reply.redirect(`${ctx.config.ui.path}/`, 303);
      },
    }),
    defineRoute({
      method: "POST",
      url: "/api/auth/login",
      summary: "Trade a user token for a browser session cookie",
      tag: "auth",
      access: "none",
      body: tokenLoginBodySchema,
      response: meSchema,
      async handler({ body, request, reply }) {
        limit(request.ip);
        const who = await ctx.users.authenticate(body.token);
        if (!who) {
          ctx.audit.record({ actor: `ip:${request.ip}`, action: "login.failed", detail: {} });
          throw new UnauthorizedError("the token is not valid");
        }
        reply.header("set-cookie", startSession(who.userId, who.admin));
        return { user: who.userId, admin: who.admin, via: "cookie" as const };
      },
    }),
    defineRoute({
      method: "POST",
      url: "/api/auth/logout",
      summary: "End this browser session",
      tag: "auth",
      access: "none",
      response: logoutAnswerSchema,
      async handler({ request, reply }) {
        const cookie = cookieValue(request.headers.cookie, SESSION_COOKIE);
        if (cookie) ctx.webSessions.revoke(cookie);
        reply.header("set-cookie", sessionCookie("", 0));
        return { signed_out: cookie !== undefined };
      },
    }),
    defineRoute({
      method: "GET",
      url: "/api/me",
      summary: "Who is signed in",
      tag: "auth",
      access: "user",
      response: meSchema,
      handler: async ({ auth }) => ({ user: auth.userId, admin: auth.admin, via: auth.via }),
    }),
  ];
}
