import { z } from "zod";
import {
  logoutAllAnswerSchema,
  logoutAnswerSchema,
  meSchema,
  tokenLoginBodySchema,
} from "../../contracts/index.js";
import { defineRoute } from "../http/api-route.js";
import { cookieValue, notSignedIn, tooManyAttempts } from "../http/auth.js";
import { browserSessions } from "../http/browser-session.js";
import type { WardenContext } from "../warden-context.js";
import { SESSION_COOKIE, signOutEverywhere } from "../web-sessions.js";

/**
 * Signing in: the one-time link printed at start (Jupyter-style), or a user token traded for a browser
 * session. Failures lock the client address out (http/login-lockout.ts, which still lets a correct token
 * through); both end in an HttpOnly SameSite=Strict cookie bound to the user's sign-in epoch, so rotating the
 * token, removing the user or signing out everywhere ends it.
 */
export function authRoutes(
  ctx: Pick<WardenContext, "config" | "users" | "webSessions" | "loginLinks" | "loginLockout" | "audit">,
) {
  const sessions = browserSessions(ctx);
  const refuse = (retryAfterSeconds: number | undefined, why: string) =>
    retryAfterSeconds === undefined ? notSignedIn(why) : tooManyAttempts(retryAfterSeconds);
  return [
    defineRoute({
      method: "GET",
      url: "/login",
      summary: "Redeem a one-time login link: sets the session cookie and opens the UI",
      tag: "auth",
      access: "none",
      query: z.looseObject({ code: z.string().min(1, "must not be empty") }),
      async handler({ query, request, reply }) {
        // A link is never checked from a locked address: unlike a token it has no id to budget guesses by.
        const outcome = await ctx.loginLockout.attempt(request.ip, undefined, () =>
          ctx.loginLinks.redeem(query.code),
        );
        if (!outcome.ok && outcome.retryAfterSeconds !== undefined)
          throw tooManyAttempts(outcome.retryAfterSeconds);
        if (!outcome.ok) {
          const why =
            "This login link was already used, has expired or was withdrawn (the token was rotated or the user signed out everywhere). Ask the operator for a new one (ironclaw user login-link <name>), or sign in with your API token.";
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
          throw notSignedIn(why);
        }
        const user = ctx.users.get(outcome.value.userId);
        if (!user) throw notSignedIn("the user of this login link no longer exists");
        const cookie = sessions.start(
          { userId: user.id, admin: user.admin, epoch: outcome.value.epoch },
          "link",
        );
        reply.header("set-cookie", cookie);
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
        const outcome = await ctx.loginLockout.attempt(request.ip, ctx.users.tokenIdIfKnown(body.token), () =>
          ctx.users.authenticate(body.token),
        );
        if (!outcome.ok) {
          ctx.audit.record({ actor: `ip:${request.ip}`, action: "login.failed", detail: {} });
          throw refuse(outcome.retryAfterSeconds, "the token is not valid");
        }
        const who = outcome.value;
        const detail = outcome.fromLockedAddress ? { from_locked_address: true } : {};
        reply.header("set-cookie", sessions.start(who, "token", detail));
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
        reply.header("set-cookie", sessions.cleared());
        return { signed_out: cookie !== undefined };
      },
    }),
    defineRoute({
      method: "POST",
      url: "/api/auth/logout-all",
      summary:
        "Sign out everywhere: end every browser session and unused login link of the signed-in user (API tokens keep working; rotate one to end it)",
      tag: "auth",
      access: "user",
      response: logoutAllAnswerSchema,
      async handler({ auth, reply }) {
        const ended = signOutEverywhere(ctx, auth.userId);
        ctx.audit.record({
          userId: auth.userId,
          actor: `user:${auth.userId}`,
          action: "logout.everywhere",
          detail: { sessions: ended },
        });
        reply.header("set-cookie", sessions.cleared());
        return { sessions_ended: ended };
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
