import type { FastifyInstance } from "fastify";
import { ok } from "../../contracts/index.js";
import { HttpError, sendEnvelopeError } from "../../http/index.js";
import type { SlackChannel } from "./slack.js";
import { headerOf, keepRawBodies, rawBodyOf, webhookErrors } from "./webhook-route.js";

export interface SlackRoutesDeps {
  /** Apps by name, the `:bot` segment of the request URL. */
  bots: Map<string, SlackChannel>;
  /** Largest accepted request in bytes; Slack's are a few kilobytes. */
  bodyLimit?: number;
}

/**
 * `POST /channels/slack/:bot`, the request URL of a Slack app's events and its slash command. The body is kept
 * as the bytes Slack sent, because the signature is over them; it is parsed only once the signature holds, so an
 * unsigned caller learns nothing about what we parse. Errors answer the `{ ok, data, error }` envelope; Slack's
 * own answers (the URL check's challenge, a slash command's ephemeral line) are Slack's shapes.
 */
export function registerSlackRoutes(app: FastifyInstance, deps: SlackRoutesDeps): void {
  keepRawBodies(app, ["application/json", "application/x-www-form-urlencoded"]);
  app.post<{ Params: { bot: string } }>(
    "/channels/slack/:bot",
    { bodyLimit: deps.bodyLimit ?? 1024 * 1024, errorHandler: webhookErrors("Slack request") },
    async (request, reply) => {
      const bot = deps.bots.get(request.params.bot);
      if (!bot)
        return sendEnvelopeError(
          reply,
          new HttpError("not_found", `no Slack app named ${request.params.bot}`),
        );
      const raw = rawBodyOf(request);
      const refusal = bot.refusal(
        headerOf(request, "x-slack-request-timestamp"),
        headerOf(request, "x-slack-signature"),
        raw,
      );
      if (refusal) {
        request.log.warn({ bot: bot.name, refusal }, "Slack request refused");
        return sendEnvelopeError(reply, new HttpError("unauthorized", refusal));
      }
      const outcome = bot.handle(headerOf(request, "content-type"), raw);
      if (outcome.kind === "challenge") return { challenge: outcome.challenge };
      if (outcome.kind === "ephemeral") return { response_type: "ephemeral", text: outcome.text };
      return ok({ request: outcome.kind });
    },
  );
}
