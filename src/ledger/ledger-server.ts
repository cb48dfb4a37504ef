import Fastify, { type FastifyBaseLogger, type FastifyInstance } from "fastify";
import { fail } from "../contracts/index.js";
import { createLogger } from "../core/index.js";
import { errorReply } from "./http-errors.js";
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
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(fail("not_found", `no route ${request.method} ${request.url.split("?")[0]}`)),
  );
  app.setErrorHandler((error, _request, reply) => {
    const { status, body } = errorReply(error);
    return reply.code(status).send(body);
  });
  const { logger: _logger, ...routes } = options;
  await app.register(ledgerRoutes, { ...routes, bodyLimit });
  return app;
}
