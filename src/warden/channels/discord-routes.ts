import type { FastifyError, FastifyInstance } from "fastify";
import { HttpError, sendEnvelopeError, toHttpError } from "../../http/index.js";
import type { DiscordChannel } from "./discord.js";

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
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("application/json", { parseAs: "buffer" }, (_request, body, done) =>
    done(null, body),
  );
  app.post<{ Params: { bot: string }; Body: Buffer }>(
    "/channels/discord/:bot",
    {
      bodyLimit: deps.bodyLimit ?? 1024 * 1024,
      errorHandler: (error: FastifyError, request, reply) => {
        const answer = toHttpError(error);
        if (answer.status >= 500) request.log.error({ err: error }, "Discord interaction failed");
        return sendEnvelopeError(reply, answer);
      },
    },
    async (request, reply) => {
      const bot = deps.bots.get(request.params.bot);
      if (!bot)
        return sendEnvelopeError(
          reply,
          new HttpError("not_found", `no Discord application named ${request.params.bot}`),
        );
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const header = (name: string) => {
        const value = request.headers[name];
        return typeof value === "string" ? value : undefined;
      };
      const refusal = bot.refusal(header("x-signature-ed25519"), header("x-signature-timestamp"), raw);
      if (refusal) {
        request.log.warn({ bot: bot.name, refusal }, "Discord interaction refused");
        return sendEnvelopeError(reply, new HttpError("unauthorized", refusal));
      }
      return bot.handle(raw);
    },
  );
}
