import type { FastifyInstance } from "fastify";
import { registerDiscordRoutes } from "../channels/discord-routes.js";
import { registerSlackRoutes } from "../channels/slack-routes.js";
import { registerTelegramRoutes } from "../channels/telegram-routes.js";
import { registerWhatsappRoutes } from "../channels/whatsapp-routes.js";
import type { WardenRoute } from "../http/api-route.js";
import type { WardenContext } from "../warden-context.js";
import { adminRoutes } from "./admin-routes.js";
import { attestRoutes } from "./attest-routes.js";
import { authRoutes } from "./auth-routes.js";
import { brainHistoryRoutes } from "./brain-history-routes.js";
import { brainRoutes } from "./brain-routes.js";
import { budgetRoutes } from "./budget-routes.js";
import { channelRoutes } from "./channel-routes.js";
import { commandChatRoutes } from "./command-chat-route.js";
import { commandRoutes } from "./command-routes.js";
import { cronRoutes } from "./cron-routes.js";
import { escalationRoutes } from "./escalation-routes.js";
import { evolutionRoutes } from "./evolution-routes.js";
import { feedbackRoutes } from "./feedback-routes.js";
import { governanceRoutes } from "./governance-routes.js";
import { learningRoutes } from "./learning-routes.js";
import { LEDGER_OPENAPI_PATHS, mountLedger } from "./ledger-mount.js";
import { mailRoutes } from "./mail-routes.js";
import { memoryRoutes } from "./memory-routes.js";
import { openAiRoutes } from "./openai-routes.js";
import { oversightRoutes } from "./oversight-routes.js";
import { secretRoutes } from "./secret-routes.js";
import { sentinelRoutes } from "./sentinel-routes.js";
import { sessionRoutes } from "./session-routes.js";
import { settingsRoutes } from "./settings-routes.js";
import { skillsRoutes } from "./skills-routes.js";
import { soulRoutes } from "./soul-routes.js";
import { systemRoutes } from "./system-routes.js";
import { uiRoutes } from "./ui-routes.js";
import { usageRoutes } from "./usage-routes.js";
import { userRoutes } from "./user-routes.js";
import { vaultRoutes } from "./vault-routes.js";
import { wsRoute } from "./ws-route.js";

// A user's brain files as a person edits them, for the settings desk's profile proposals (wired in the daemon).
export { readBrainFile } from "./brain-access.js";
export { editBrainAsPerson } from "./person-edit.js";

/** The JSON routes of /api, one module per resource; each takes only the services it names. */
export function apiRoutes(ctx: WardenContext): WardenRoute[] {
  return [
    ...systemRoutes(ctx),
    ...authRoutes(ctx),
    ...userRoutes(ctx),
    ...sessionRoutes(ctx),
    ...brainRoutes(ctx),
    ...soulRoutes(ctx),
    ...channelRoutes(ctx),
    ...budgetRoutes(ctx),
    ...secretRoutes(ctx),
    ...skillsRoutes(ctx),
    ...usageRoutes(ctx),
    ...memoryRoutes(ctx),
    ...cronRoutes(ctx),
    ...commandRoutes(ctx),
    ...commandChatRoutes(ctx),
    ...learningRoutes(ctx),
    ...oversightRoutes(ctx),
    ...sentinelRoutes(ctx),
    ...escalationRoutes(ctx),
    ...evolutionRoutes(ctx),
    ...feedbackRoutes(ctx),
    ...mailRoutes(ctx),
    ...settingsRoutes(ctx),
    ...governanceRoutes(ctx),
    ...vaultRoutes(ctx),
    ...attestRoutes(ctx),
    ...brainHistoryRoutes(ctx),
    ...adminRoutes(ctx),
  ];
}

/**
 * The routes that answer otherwise than with the envelope, each a plugin with its own error handling: the chat
 * WebSocket, OpenAI's /v1 (OpenAI's error shape), Telegram's webhook, and the web UI when it is served.
 */
export function pluginRoutes(ctx: WardenContext): Array<(app: FastifyInstance) => Promise<void> | void> {
  return [
    (app) => wsRoute(app, ctx),
    (app) => openAiRoutes(app, ctx),
    (app) => mountLedger(app, ctx),
    (app) => registerTelegramRoutes(app, { bots: ctx.telegramBots, bodyLimit: ctx.config.server.body_limit }),
    (app) => registerSlackRoutes(app, { bots: ctx.slackBots, bodyLimit: ctx.config.server.body_limit }),
    (app) => registerDiscordRoutes(app, { bots: ctx.discordBots, bodyLimit: ctx.config.server.body_limit }),
    (app) => registerWhatsappRoutes(app, { bots: ctx.whatsappBots, bodyLimit: ctx.config.server.body_limit }),
    ...(ctx.config.ui.enabled ? [(app: FastifyInstance) => uiRoutes(app, { path: ctx.config.ui.path })] : []),
  ];
}

/** Hand-written OpenAPI entries for what is not a JSON route: the WebSocket, the OpenAI endpoint, webhooks. */
export const PLUGIN_OPENAPI_PATHS = {
  ...LEDGER_OPENAPI_PATHS,
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
  "/channels/slack/{bot}": {
    post: {
      summary: "A Slack app's events and slash command; X-Slack-Signature (v0, signing secret) required",
      tags: ["channels"],
      security: [],
      responses: {
        "200": { description: "accepted, the URL check's challenge, or a slash command's ephemeral answer" },
        "401": { description: "unsigned, badly signed or stale (over 5 minutes)" },
      },
    },
  },
  "/channels/discord/{bot}": {
    post: {
      summary:
        "A Discord application's interactions; X-Signature-Ed25519 over the timestamp and body required",
      tags: ["channels"],
      security: [],
      responses: {
        "200": { description: "Discord's interaction response" },
        "401": { description: "unsigned, badly signed or stale" },
      },
    },
  },
  "/channels/whatsapp/{bot}": {
    get: {
      summary:
        "Meta's webhook subscription check: hub.mode=subscribe, hub.verify_token, hub.challenge (echoed)",
      tags: ["channels"],
      security: [],
      responses: { "200": { description: "the challenge, as text" }, "403": { description: "wrong token" } },
    },
    post: {
      summary:
        "WhatsApp Cloud API notifications; X-Hub-Signature-256 (the app secret's HMAC of the body) required",
      tags: ["channels"],
      security: [],
      responses: { "200": { description: "accepted" }, "401": { description: "unsigned or badly signed" } },
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
