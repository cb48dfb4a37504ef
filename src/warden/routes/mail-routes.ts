import {
  mailSendCancelledSchema,
  mailSendParamsSchema,
  mailSentSchema,
  pendingMailSendsSchema,
} from "../../contracts/index.js";
import { HttpError } from "../../http/index.js";
import { defineRoute } from "../http/api-route.js";
import type { WardenContext } from "../warden-context.js";

/**
 * The person's side of the mail tools (issue #38): the sends their agent asked for wait here until the person
 * confirms one (the exact draft the agent showed is sent, or nothing) or cancels it. Only the caller's own sends:
 * another user's id is answered as unknown.
 */
export function mailRoutes(ctx: Pick<WardenContext, "mailSends" | "audit">) {
  const record = (userId: string, action: string, detail: Record<string, unknown>) =>
    ctx.audit.record({ userId, actor: `user:${userId}`, action, detail });
  return [
    defineRoute({
      method: "GET",
      url: "/api/integrations/mail/sends",
      summary: "Mail your agent asked to send, waiting for your confirmation",
      tag: "integrations",
      access: "user",
      response: pendingMailSendsSchema,
      handler: async ({ auth }) => ({
        mail: ctx.mailSends.state(auth.userId),
        sends: ctx.mailSends.pending(auth.userId),
      }),
    }),
    defineRoute({
      method: "POST",
      url: "/api/integrations/mail/sends/:id/confirm",
      summary: "Send the draft your agent asked to send, exactly as it was then",
      tag: "integrations",
      access: "user",
      params: mailSendParamsSchema,
      response: mailSentSchema,
      handler: async ({ auth, params }) => {
        const sent = await ctx.mailSends.confirm(auth.userId, params.id);
        record(auth.userId, "integration.mail.confirm", {
          pending: params.id,
          ...(sent.ok ? { sent: true, recipients: sent.to.length } : { sent: false, code: sent.code }),
        });
        if (sent.ok) return { message_id: sent.message_id, to: sent.to };
        const code = sent.code === "failed" ? "bad_gateway" : sent.code;
        throw new HttpError(code, sent.message, { field: "id" });
      },
    }),
    defineRoute({
      method: "POST",
      url: "/api/integrations/mail/sends/:id/cancel",
      summary: "Drop a send your agent asked for; nothing is sent",
      tag: "integrations",
      access: "user",
      params: mailSendParamsSchema,
      response: mailSendCancelledSchema,
      handler: async ({ auth, params }) => {
        if (!ctx.mailSends.cancel(auth.userId, params.id))
          throw new HttpError("not_found", `no pending send ${params.id} of yours`, { field: "id" });
        record(auth.userId, "integration.mail.cancel", { pending: params.id });
        return { id: params.id, cancelled: true as const };
      },
    }),
  ];
}
