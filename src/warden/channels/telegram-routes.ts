import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type Envelope, fail, ok } from "../../contracts/index.js";
import { ValidationError } from "../../core/index.js";
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
        if (!bot) return reply.code(404).send(unknownBot(request.params.bot));
        const header = request.headers[SECRET_HEADER];
        if (!bot.checkSecret(typeof header === "string" ? header : undefined))
          return reply.code(403).send(fail("forbidden", "missing or wrong X-Telegram-Bot-Api-Secret-Token"));
      },
      errorHandler: (error: FastifyError, request, reply) => {
        const { status, body } = webhookError(error);
        if (status >= 500) request.log.error({ err: error }, "Telegram webhook failed");
        return reply.code(status).send(body);
      },
    },
    async (request, reply) => {
      const bot = deps.bots.get(request.params.bot);
      if (!bot) return reply.code(404).send(unknownBot(request.params.bot));
      const answer: Envelope<{ update: UpdateOutcome }> = ok({ update: bot.handleUpdate(request.body) });
      return answer;
    },
  );
}

function unknownBot(name: string): Envelope<never> {
  return fail("not_found", `no Telegram bot named ${name}`);
}

/** A malformed update names the field (400); fastify's own refusals keep their status; the rest is a 500. */
function webhookError(error: FastifyError): { status: number; body: Envelope<never> } {
  if (error instanceof ValidationError) {
    const [first] = error.issues;
    const message = first ? `${first.path}: ${first.message}` : error.message;
    return { status: 400, body: fail("validation_failed", message, { issues: error.issues }) };
  }
  const status = error.statusCode ?? 500;
  if (status === 413) return { status, body: fail("payload_too_large", error.message) };
  if (status >= 400 && status < 500) return { status, body: fail("bad_request", error.message) };
  return { status: 500, body: fail("internal", "internal error") };
}
