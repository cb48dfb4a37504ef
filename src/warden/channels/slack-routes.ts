import type { FastifyError, FastifyInstance } from "fastify";
import { ok } from "../../contracts/index.js";
import { HttpError, sendEnvelopeError, toHttpError } from "../../http/index.js";
import type { SlackChannel } from "./slack.js";

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
  // This plugin's own parsers (Fastify scopes them to it): raw bytes for both of the types Slack sends.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    ["application/json", "application/x-www-form-urlencoded"],
    { parseAs: "buffer" },
    (_request, body, done) => done(null, body),
  );
  app.post<{ Params: { bot: string }; Body: Buffer }>(
    "/channels/slack/:bot",
    {
      bodyLimit: deps.bodyLimit ?? 1024 * 1024,
      errorHandler: (error: FastifyError, request, reply) => {
        const answer = toHttpError(error);
        if (answer.status >= 500) request.log.error({ err: error }, "Slack request failed");
        return sendEnvelopeError(reply, answer);
      },
    },
    async (request, reply) => {
      const bot = deps.bots.get(request.params.bot);
      if (!bot)
        return sendEnvelopeError(
          reply,
          new HttpError("not_found", `no Slack app named ${request.params.bot}`),
        );
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const header = (name: string) => {
        const value = request.headers[name];
        return typeof value === "string" ? value : undefined;
      };
      const refusal = bot.refusal(header("x-slack-request-timestamp"), header("x-slack-signature"), raw);
      if (refusal) {
        request.log.warn({ bot: bot.name, refusal }, "Slack request refused");
        return sendEnvelopeError(reply, new HttpError("unauthorized", refusal));
      }
      const outcome = bot.handle(header("content-type"), raw);
      if (outcome.kind === "challenge") return { challenge: outcome.challenge };
      if (outcome.kind === "ephemeral") return { response_type: "ephemeral", text: outcome.text };
      return ok({ request: outcome.kind });
    },
  );
}
