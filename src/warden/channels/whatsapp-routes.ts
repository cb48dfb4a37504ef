import type { FastifyInstance } from "fastify";
import { ok } from "../../contracts/index.js";
import { HttpError, sendEnvelopeError } from "../../http/index.js";
import { headerOf, keepRawBodies, rawBodyOf, webhookErrors } from "./webhook-route.js";
import type { WhatsappChannel } from "./whatsapp.js";

export interface WhatsappRoutesDeps {
  /** Numbers by name, the `:bot` segment of the webhook URL. */
  bots: Map<string, WhatsappChannel>;
  bodyLimit?: number;
}

type Query = { "hub.mode"?: string; "hub.verify_token"?: string; "hub.challenge"?: string };

/**
 * The Cloud API's webhook: `GET /channels/whatsapp/:bot` answers Meta's subscription check with its challenge
 * (plain text) when the verify token is right, and `POST` takes notifications, kept as the bytes Meta sent
 * because the signature is over them, and parsed only once it holds.
 */
export function registerWhatsappRoutes(app: FastifyInstance, deps: WhatsappRoutesDeps): void {
  keepRawBodies(app, ["application/json"]);
  const errorHandler = webhookErrors("WhatsApp webhook");
  const unknown = (bot: string) => new HttpError("not_found", `no WhatsApp number named ${bot}`);

  app.get<{ Params: { bot: string }; Querystring: Query }>(
    "/channels/whatsapp/:bot",
    { errorHandler },
    async (request, reply) => {
      const bot = deps.bots.get(request.params.bot);
      if (!bot) return sendEnvelopeError(reply, unknown(request.params.bot));
      const q = request.query;
      const challenge = bot.verification(q["hub.mode"], q["hub.verify_token"], q["hub.challenge"]);
      if (challenge === undefined)
        return sendEnvelopeError(
          reply,
          new HttpError("forbidden", "wrong hub.verify_token, or not a subscribe"),
        );
      return reply.type("text/plain").send(challenge);
    },
  );

  app.post<{ Params: { bot: string } }>(
    "/channels/whatsapp/:bot",
    { bodyLimit: deps.bodyLimit ?? 1024 * 1024, errorHandler },
    async (request, reply) => {
      const bot = deps.bots.get(request.params.bot);
      if (!bot) return sendEnvelopeError(reply, unknown(request.params.bot));
      const raw = rawBodyOf(request);
      const refusal = bot.refusal(headerOf(request, "x-hub-signature-256"), raw);
      if (refusal) {
        request.log.warn({ bot: bot.name, refusal }, "WhatsApp notification refused");
        return sendEnvelopeError(reply, new HttpError("unauthorized", refusal));
      }
      return ok(bot.handle(raw));
    },
  );
}
