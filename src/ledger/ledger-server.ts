import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { createLogger } from "../core/index.js";
import { noRouteError, sendEnvelopeError } from "../http/index.js";
import { ledgerHttpErrorOf } from "./http-errors.js";
import { DEFAULT_BODY_LIMIT, type LedgerRoutesOptions, ledgerRoutes } from "./ledger-routes.js";

export interface LedgerServerOptions extends LedgerRoutesOptions {
  /** A pino logger (core createLogger) for requests; silent by default. */
  logger?: FastifyBaseLogger;
}

/**
 * A fastify instance serving only the ledger (`ironclaw ledger serve`). Unknown routes and errors outside the
 * ledger's own routes also answer with the envelope. The caller listens and closes it; closing ends open
 * event streams.
 */
export async function createLedgerServer(options: LedgerServerOptions): Promise<FastifyInstance> {
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const app = Fastify({
    loggerInstance: options.logger ?? createLogger("ledger", { level: "silent" }),
    bodyLimit,
  });
  app.setNotFoundHandler((request, reply) => sendEnvelopeError(reply, noRouteError(request)));
  app.setErrorHandler((error, _request, reply) => sendEnvelopeError(reply, ledgerHttpErrorOf(error)));
  const { logger: _logger, ...routes } = options;
  await app.register(ledgerRoutes, { ...routes, bodyLimit });
  return app;
}
