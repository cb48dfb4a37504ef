import websocket from "@fastify/websocket";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from "fastify";
import { fail } from "../../contracts/index.js";
import { BadRequestError } from "../../ledger/index.js";
import { registerTelegramRoutes } from "../channels/telegram-routes.js";
import { adminRoutes } from "../routes/admin-routes.js";
import { authRoutes } from "../routes/auth-routes.js";
import { brainRoutes } from "../routes/brain-routes.js";
import { budgetRoutes } from "../routes/budget-routes.js";
import { channelRoutes } from "../routes/channel-routes.js";
import { cronRoutes } from "../routes/cron-routes.js";
import { memoryRoutes } from "../routes/memory-routes.js";
import { openAiRoutes } from "../routes/openai-routes.js";
import { sessionRoutes } from "../routes/session-routes.js";
import { soulRoutes } from "../routes/soul-routes.js";
import { systemRoutes } from "../routes/system-routes.js";
import { uiRoutes } from "../routes/ui-routes.js";
import { usageRoutes } from "../routes/usage-routes.js";
import { userRoutes } from "../routes/user-routes.js";
import { wsRoute } from "../routes/ws-route.js";
import type { WardenContext } from "../warden-context.js";
import { ApiRegistry } from "./api-route.js";
import { wardenErrorReply } from "./error-reply.js";

/** Hand-written OpenAPI entries for what is not a JSON route: the WebSocket, the OpenAI endpoint, webhooks. */
const EXTRA_PATHS = {
  "/api/ws": {
    get: {
      summary:
        "Chat over a WebSocket (see src/contracts/warden/api.ts: wsClientMessageSchema, chatEventSchema)",
      tags: ["chat"],
      responses: { "101": { description: "upgraded" }, "403": { description: "foreign Origin" } },
    },
  },
  "/v1/chat/completions": {
    post: {
      summary: "OpenAI-compatible chat completions (streaming and not); model = an agent profile",
      tags: ["openai"],
      responses: { "200": { description: "chat.completion or an SSE stream of chat.completion.chunk" } },
    },
  },
  "/v1/models": {
    get: {
      summary: "The user's agent profiles as OpenAI models",
      tags: ["openai"],
      responses: { "200": { description: "list" } },
    },
  },
  "/channels/telegram/{bot}": {
    post: {
      summary: "Telegram webhook; X-Telegram-Bot-Api-Secret-Token required",
      tags: ["channels"],
      security: [],
      responses: { "200": { description: "accepted" }, "403": { description: "bad secret" } },
    },
  },
};

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
  // JSON bodies only. An empty body is no body (POST /api/auth/logout); anything else must parse.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", { parseAs: "string" }, (_request, body, done) => {
    const text = typeof body === "string" ? body : body.toString("utf8");
    if (text.trim() === "") return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch (cause) {
      done(new BadRequestError(`request body is not valid JSON: ${(cause as Error).message}`, { cause }));
    }
  });
  app.setErrorHandler((error, request, reply) => {
    const answer = wardenErrorReply(error, {
      bodyLimit: ctx.config.server.body_limit,
      messageLimit: ctx.config.limits.max_message_bytes,
    });
    if (answer.status >= 500) request.log.error({ err: error, url: request.url }, "request failed");
    if (answer.retryAfter !== undefined) reply.header("retry-after", String(answer.retryAfter));
    return reply.code(answer.status).send(answer.body);
  });
  app.setNotFoundHandler((request, reply) =>
    reply.code(404).send(fail("not_found", `no route ${request.method} ${request.url.split("?")[0]}`)),
  );
  app.addHook("onSend", async (_request, reply) => {
    reply.header("x-content-type-options", "nosniff");
    reply.header("referrer-policy", "no-referrer");
  });

  // A frame over this closes the socket (1009); a chat message over [limits] is refused with an error event and
  // the socket stays open, so the frame limit sits well above the largest message limit.
  await app.register(websocket, { options: { maxPayload: WS_MAX_FRAME_BYTES } });
  const api = new ApiRegistry(app, ctx.authenticator);
  api.add(
    ...systemRoutes(ctx),
    ...authRoutes(ctx),
    ...userRoutes(ctx),
    ...sessionRoutes(ctx),
    ...brainRoutes(ctx),
    ...soulRoutes(ctx),
    ...channelRoutes(ctx),
    ...budgetRoutes(ctx),
    ...usageRoutes(ctx),
    ...memoryRoutes(ctx),
    ...cronRoutes(ctx),
    ...adminRoutes(ctx),
  );
  app.get("/api/openapi.json", async () => api.openApi(EXTRA_PATHS));
  await app.register(async (child) => wsRoute(child, ctx));
  await app.register(async (child) => openAiRoutes(child, ctx));
  await app.register(async (child) =>
    registerTelegramRoutes(child, { bots: ctx.telegramBots, bodyLimit: ctx.config.server.body_limit }),
  );
  if (ctx.config.ui.enabled)
    await app.register(async (child) => uiRoutes(child, { path: ctx.config.ui.path }));
  app.get("/", async (_request, reply) =>
    reply.redirect(ctx.config.ui.enabled ? `${ctx.config.ui.path}/` : "/api/openapi.json", 302),
  );
  return app;
}
