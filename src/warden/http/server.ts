import type { Readable } from "node:stream";
import websocket from "@fastify/websocket";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from "fastify";
import { SKILL_UPLOAD_TYPES } from "../../contracts/index.js";
import {
  HttpError,
  noRouteError,
  openApiDocument,
  sendEnvelopeError,
  toHttpError,
} from "../../http/index.js";
import { apiRoutes, PLUGIN_OPENAPI_PATHS, pluginRoutes } from "../routes/index.js";
import type { WardenContext } from "../warden-context.js";
import { WARDEN_OPENAPI, wardenApi } from "./api-route.js";
import { wardenErrors } from "./warden-errors.js";

declare module "fastify" {
  interface FastifyRequest {
    /** The request body's bytes exactly as received; undefined when there was no body. */
    rawBody: Buffer | undefined;
    /** An archive's bytes still unread, for the route that takes uploads; undefined for any other body. */
    bodyStream: Readable | undefined;
  }
}

/** The largest WebSocket frame read: 16 MiB, four times the largest [limits] max_message_bytes. */
const WS_MAX_FRAME_BYTES = 16 * 1024 * 1024;

/** The warden's HTTP + WebSocket server, every route registered, not yet listening. */
export async function buildWardenServer(ctx: WardenContext): Promise<FastifyInstance> {
  const app: FastifyInstance = Fastify({
    loggerInstance: ctx.logger as FastifyBaseLogger,
    bodyLimit: ctx.config.server.body_limit,
    // Requests are not logged one by one: the audit log records what matters, by user.
    logController: new LogController({ disableRequestLogging: true }),
    return503OnClosing: true,
  });
  // JSON bodies only. An empty body is no body (POST /api/auth/logout); anything else must parse. The bytes are
  // kept beside the parsed value for routes that store evidence exactly as received (POST /api/evolution/events).
  app.removeAllContentTypeParsers();
  app.decorateRequest("rawBody", undefined);
  app.addContentTypeParser("*", { parseAs: "buffer" }, (request, body, done) => {
    const bytes = typeof body === "string" ? Buffer.from(body, "utf8") : body;
    request.rawBody = bytes;
    const text = bytes.toString("utf8");
    if (text.trim() === "") return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (cause) {
      done(
        new HttpError("bad_request", `request body is not valid JSON: ${(cause as Error).message}`, {
          cause,
        }),
      );
    }
  });
  // Archives (a skill's upload) are not read here: the route that takes one checks its caller first, then
  // streams the bytes to disk under its own size cap. Every other route finds no body.
  app.decorateRequest("bodyStream", undefined);
  app.addContentTypeParser([...SKILL_UPLOAD_TYPES], (request, payload, done) => {
    request.bodyStream = payload;
    done(null, undefined);
  });
  const translate = wardenErrors({
    bodyLimit: ctx.config.server.body_limit,
    messageLimit: ctx.config.limits.max_message_bytes,
  });
  app.setErrorHandler((error, request, reply) => {
    const answer = toHttpError(error, [translate]);
    if (answer.status >= 500) request.log.error({ err: error, url: request.url }, "request failed");
    return sendEnvelopeError(reply, answer);
  });
  app.setNotFoundHandler((request, reply) => sendEnvelopeError(reply, noRouteError(request)));
  app.addHook("onSend", async (_request, reply) => {
    reply.header("x-content-type-options", "nosniff");
    reply.header("referrer-policy", "no-referrer");
  });

  // A frame over this closes the socket (1009); a chat message over [limits] is refused with an error event and
  // the socket stays open, so the frame limit sits well above the largest message limit.
  await app.register(websocket, { options: { maxPayload: WS_MAX_FRAME_BYTES } });
  const api = wardenApi(app, ctx.authenticator);
  api.add(...apiRoutes(ctx));
  app.get("/api/openapi.json", async () =>
    openApiDocument(api.registered, { ...WARDEN_OPENAPI, extraPaths: PLUGIN_OPENAPI_PATHS }),
  );
  for (const plugin of pluginRoutes(ctx)) await app.register(async (child) => plugin(child));
  app.get("/", async (_request, reply) =>
    reply.redirect(ctx.config.ui.enabled ? `${ctx.config.ui.path}/` : "/api/openapi.json", 302),
  );
  return app;
}
