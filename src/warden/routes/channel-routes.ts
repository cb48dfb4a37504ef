import { pairingCodeSchema } from "../../contracts/index.js";
import { DEFAULT_PAIRING_TTL_MS } from "../channels/channel-links.js";
import { defineRoute } from "../http/api-route.js";
import type { WardenContext } from "../warden-context.js";

/** Pairing a chat account (Telegram, Slack, WhatsApp) with the signed-in user: a one-time code to send to the bot. */
export function channelRoutes(
  ctx: Pick<
    WardenContext,
    "channelLinks" | "audit" | "telegramBots" | "slackBots" | "whatsappBots" | "discordBots"
  >,
) {
  return [
    defineRoute({
      method: "POST",
      url: "/api/channels/pairing-code",
      summary: "A one-time code; send `/pair <code>` to the bot to link your chat account",
      tag: "channels",
      access: "user",
      response: pairingCodeSchema,
      status: 201,
      async handler({ auth }) {
        const code = ctx.channelLinks.issuePairingCode(auth.userId, DEFAULT_PAIRING_TTL_MS);
        ctx.audit.record({
          userId: auth.userId,
          actor: `user:${auth.userId}`,
          action: "channel.pairing_code",
          detail: {},
        });
        return {
          code,
          expires_in_seconds: DEFAULT_PAIRING_TTL_MS / 1000,
          bots: [...ctx.telegramBots.keys()],
          channels: [
            ...ctx.telegramBots.values(),
            ...ctx.slackBots.values(),
            ...ctx.discordBots.values(),
            ...ctx.whatsappBots.values(),
          ].map((channel) => ({
            channel: `${channel.kind}:${channel.name}`,
            how: channel.pairingInstruction(code),
          })),
        };
      },
    }),
  ];
}
