import { z } from "zod";
import {
  anyId,
  escalationListQuerySchema,
  escalationListSchema,
  escalationSchema,
} from "../../contracts/index.js";
import { HttpError } from "../../http/index.js";
import type { EscalationBook } from "../escalations/index.js";
import { defineRoute } from "../http/api-route.js";
import type { WardenContext } from "../warden-context.js";

const escalationParams = z.object({ escalation_id: anyId });

/**
 * Escalations for the people they concern (issue 35): a user reads those of their runs and theaters (an admin
 * also those of the host) and acknowledges one, as an ESCALATION_ACKED naming them and the API as its channel.
 * Another user's escalation is answered as unknown (404); a second acknowledgement as a conflict naming the first.
 */
export function escalationRoutes(ctx: Pick<WardenContext, "escalations">) {
  const book = (): EscalationBook => {
    if (!ctx.escalations)
      throw new HttpError(
        "unavailable",
        "command is off on this host: [command] enabled = false in ironclawd.toml",
      );
    return ctx.escalations;
  };
  return [
    defineRoute({
      method: "GET",
      url: "/api/escalations",
      summary: "Your escalations, oldest first; ?open=1 for those nobody has acknowledged yet",
      tag: "command",
      access: "user",
      query: escalationListQuerySchema,
      response: escalationListSchema,
      async handler({ auth, query }) {
        const open = query.open === "1" || query.open === "true";
        return { escalations: await book().list(auth.userId, { open }) };
      },
    }),
    defineRoute({
      method: "GET",
      url: "/api/escalations/:escalation_id",
      summary: "One of your escalations and whether (by whom, from where, when) it was acknowledged",
      tag: "command",
      access: "user",
      params: escalationParams,
      response: escalationSchema,
      handler: ({ auth, params }) => book().get(auth, params.escalation_id),
    }),
    defineRoute({
      method: "POST",
      url: "/api/escalations/:escalation_id/ack",
      summary: "Acknowledge one of your escalations (ESCALATION_ACKED, channel api); 409 when it already was",
      tag: "command",
      access: "user",
      params: escalationParams,
      response: escalationSchema,
      handler: ({ auth, params }) =>
        book().ack({ userId: auth.userId, admin: auth.admin, channel: "api" }, params.escalation_id),
    }),
  ];
}
