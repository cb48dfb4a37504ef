import { z } from "zod";
import {
  userCreateBodySchema,
  userNameSchema,
  userRemovedSchema,
  userSchema,
  userTokenSchema,
  wardenAuditQuerySchema,
  wardenAuditRecordSchema,
} from "../../contracts/index.js";
import { NotFoundError } from "../../core/index.js";
import { HttpError } from "../../http/index.js";
import { defineRoute } from "../http/api-route.js";
import { browserSessions } from "../http/browser-session.js";
import type { WardenContext } from "../warden-context.js";

const nameParams = z.strictObject({ name: userNameSchema });

/** Users and their API tokens: admins manage everyone; a user may rotate their own token. */
export function userRoutes(ctx: Pick<WardenContext, "users" | "audit" | "cells" | "config" | "webSessions">) {
  const { users, audit } = ctx;
  const sessions = browserSessions(ctx);
  return [
    defineRoute({
      method: "GET",
      url: "/api/users",
      summary: "Every user (admin)",
      tag: "users",
      access: "admin",
      response: z.array(userSchema),
      handler: async () => users.list(),
    }),
    defineRoute({
      method: "POST",
      url: "/api/users",
      summary: "Add a user; the answer carries their API token, shown only this once (admin)",
      tag: "users",
      access: "admin",
      body: userCreateBodySchema,
      response: userTokenSchema,
      status: 201,
      async handler({ body, auth }) {
        const { user, token } = await users.add(body.name, { admin: body.admin ?? false });
        audit.record({
          userId: user.id,
          actor: `user:${auth.userId}`,
          action: "user.added",
          detail: { admin: user.admin },
        });
        return { user: user.id, token };
      },
    }),
    defineRoute({
      method: "DELETE",
      url: "/api/users/:name",
      summary: "Remove a user and their tokens and sessions; their brain stays on disk (admin)",
      tag: "users",
      access: "admin",
      params: nameParams,
      response: userRemovedSchema,
      async handler({ params, auth }) {
        if (params.name === auth.userId)
          throw new HttpError("forbidden", "an admin cannot remove themselves");
        if (!users.get(params.name)) throw new NotFoundError("user", params.name);
        await ctx.cells.stop(params.name);
        users.remove(params.name);
        audit.record({
          userId: params.name,
          actor: `user:${auth.userId}`,
          action: "user.removed",
          detail: {},
        });
        return { removed: params.name };
      },
    }),
    defineRoute({
      method: "POST",
      url: "/api/users/:name/token",
      summary:
        "Rotate a user's API token: the old one and every browser session of the user stop working at once (admin, or the user themselves)",
      tag: "users",
      access: "user",
      params: nameParams,
      response: userTokenSchema,
      async handler({ params, auth, reply }) {
        if (params.name !== auth.userId && !auth.admin)
          throw new HttpError("forbidden", "only an admin can rotate another user's token");
        const before = users.signInEpoch(params.name);
        const token = await users.rotateToken(params.name);
        audit.record({
          userId: params.name,
          actor: `user:${auth.userId}`,
          action: "token.rotated",
          detail: {},
        });
        // Rotating one's own token from the UI ends that browser session with all the others; it is replaced
        // by a new one, so the page that shows the new token (once) is not signed out under its reader. That
        // gives the caller nothing the new token in this very answer does not. Bound to the epoch this
        // rotation made: if anything else ended the user's sign-ins meanwhile, no session is opened.
        if (params.name === auth.userId && auth.via === "cookie" && before !== undefined) {
          const owner = { userId: auth.userId, admin: auth.admin, epoch: before + 1 };
          const cookie = sessions.open(owner, "rotation");
          if (cookie) reply.header("set-cookie", cookie);
        }
        return { user: params.name, token };
      },
    }),
    defineRoute({
      method: "GET",
      url: "/api/audit",
      summary: "The warden's audit trail: your own entries, or everyone's for an admin",
      tag: "users",
      access: "user",
      query: wardenAuditQuerySchema,
      response: z.array(wardenAuditRecordSchema),
      handler: async ({ auth, query }) => {
        const userId = auth.admin ? query.user : auth.userId;
        return audit.list({
          ...(userId ? { userId } : {}),
          ...(query.action ? { action: query.action } : {}),
          ...(query.limit ? { limit: query.limit } : {}),
        });
      },
    }),
  ];
}
