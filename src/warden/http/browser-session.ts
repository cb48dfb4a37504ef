import type { WardenContext } from "../warden-context.js";
import { SESSION_COOKIE } from "../web-sessions.js";
import { notSignedIn } from "./auth.js";

/** Who a browser session is opened for, with the sign-in epoch read when their credential was checked. */
export interface SessionOwner {
  userId: string;
  admin: boolean;
  epoch: number;
}

/**
 * Opening browser sessions and writing their HttpOnly SameSite=Strict cookie, for the sign-in routes and for a
 * user who rotates their own token from the UI (whose session ends with the old token and is replaced).
 */
export function browserSessions(ctx: Pick<WardenContext, "config" | "webSessions" | "audit">) {
  const ttlMs = ctx.config.auth.session_ttl_hours * 3_600_000;
  const secure = (ctx.config.server.public_url ?? "").startsWith("https:");
  const cookie = (value: string, maxAgeSeconds: number) =>
    `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${secure ? "; Secure" : ""}`;
  return {
    /** The Set-Cookie value that removes the cookie. */
    cleared: () => cookie("", 0),
    /** Opens a session and returns its Set-Cookie value; undefined when the epoch moved on since the check. */
    open(owner: SessionOwner, via: "token" | "link" | "rotation", detail: Record<string, unknown> = {}) {
      const session = ctx.webSessions.create(owner.userId, ttlMs, owner.epoch);
      if (!session) return undefined;
      ctx.audit.record({
        userId: owner.userId,
        actor: `user:${owner.userId}`,
        action: "login",
        detail: { admin: owner.admin, via, ...detail },
      });
      return cookie(session.id, Math.floor(ttlMs / 1000));
    },
    /** As open, but a sign-in whose epoch moved on while it was checked (a rotation, a sign-out) is a 401. */
    start(owner: SessionOwner, via: "token" | "link", detail: Record<string, unknown> = {}): string {
      const opened = this.open(owner, via, detail);
      if (opened === undefined)
        throw notSignedIn("this sign-in was ended while it was being checked: sign in again");
      return opened;
    },
  };
}
