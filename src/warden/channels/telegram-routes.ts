import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type Envelope, ok } from "../../contracts/index.js";
import { HttpError, sendEnvelopeError, toHttpError } from "../../http/index.js";
import type { TelegramChannel, UpdateOutcome } from "./telegram.js";

export interface TelegramRoutesDeps {
  /** Bots by name, the `:bot` segment of the webhook URL. */
  bots: Map<string, TelegramChannel>;
  /** Largest accepted update in bytes; Telegram's are a few kilobytes. */
  bodyLimit?: number;
}

export const SECRET_HEADER = "x-telegram-bot-api-secret-token";

type WebhookRequest = FastifyRequest<{ Params: { bot: string } }>;

/**
 * `POST /channels/telegram/:bot`, the webhook Telegram calls with each update. The bot and its secret are
 * checked before the body is read, so a caller without the secret learns nothing about what we parse. Errors
 * are handled by this route alone and answer the `{ ok, data, error }` envelope whatever the warden's own
 * error handler does.
 */
export function registerTelegramRoutes(app: FastifyInstance, deps: TelegramRoutesDeps): void {
  app.post<{ Params: { bot: string } }>(
    "/channels/telegram/:bot",
    {
      bodyLimit: deps.bodyLimit ?? 1024 * 1024,
      onRequest: async (request: WebhookRequest, reply: FastifyReply) => {
        const bot = deps.bots.get(request.params.bot);
        if (!bot) return sendEnvelopeError(reply, unknownBot(request.params.bot));
        const header = request.headers[SECRET_HEADER];
        if (!bot.checkSecret(typeof header === "string" ? header : undefined))
          return sendEnvelopeError(
            reply,
            new HttpError("forbidden", "missing or wrong X-Telegram-Bot-Api-Secret-Token"),
          );
      },
      // A malformed update names the field (400); fastify's own refusals keep their status; the rest is a 500.
      errorHandler: (error: FastifyError, request, reply) => {
        const answer = toHttpError(error);
        if (answer.status >= 500) request.log.error({ err: error }, "Telegram webhook failed");
        return sendEnvelopeError(reply, answer);
      },
    },
    async (request, reply) => {
      const bot = deps.bots.get(request.params.bot);
      if (!bot) return sendEnvelopeError(reply, unknownBot(request.params.bot));
      const answer: Envelope<{ update: UpdateOutcome }> = ok({ update: bot.handleUpdate(request.body) });
      return answer;
    },
  );
}

function unknownBot(name: string): HttpError {
  return new HttpError("not_found", `no Telegram bot named ${name}`);
}
