import type { FastifyInstance } from "fastify";
import { HttpError, sendEnvelopeError } from "../../http/index.js";
import type { DiscordChannel } from "./discord.js";
import { headerOf, keepRawBodies, rawBodyOf, webhookErrors } from "./webhook-route.js";

export interface DiscordRoutesDeps {
  /** Applications by name, the `:bot` segment of the interactions URL. */
  bots: Map<string, DiscordChannel>;
  bodyLimit?: number;
}

/**
 * `POST /channels/discord/:bot`, a Discord application's interactions endpoint. The body is kept as the bytes
 * Discord sent, because the signature is over them, and parsed only once it holds (Discord itself checks that an
 * endpoint refuses a bad signature before it accepts the URL). Refusals answer the `{ ok, data, error }` envelope;
 * interactions are answered in Discord's shape.
 */
export function registerDiscordRoutes(app: FastifyInstance, deps: DiscordRoutesDeps): void {
  keepRawBodies(app, ["application/json"]);
  app.post<{ Params: { bot: string } }>(
    "/channels/discord/:bot",
    { bodyLimit: deps.bodyLimit ?? 1024 * 1024, errorHandler: webhookErrors("Discord interaction") },
    async (request, reply) => {
      const bot = deps.bots.get(request.params.bot);
      if (!bot)
        return sendEnvelopeError(
          reply,
          new HttpError("not_found", `no Discord application named ${request.params.bot}`),
        );
      const raw = rawBodyOf(request);
      const refusal = bot.refusal(
        headerOf(request, "x-signature-ed25519"),
        headerOf(request, "x-signature-timestamp"),
        raw,
      );
      if (refusal) {
        request.log.warn({ bot: bot.name, refusal }, "Discord interaction refused");
        return sendEnvelopeError(reply, new HttpError("unauthorized", refusal));
      }
      return bot.handle(raw);
    },
  );
}
