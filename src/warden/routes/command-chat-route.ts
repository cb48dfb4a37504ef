import { z } from "zod";
import { chatAsyncDataSchema, chatRequestSchema, chatSyncDataSchema } from "../../contracts/index.js";
import { defineRoute } from "../http/api-route.js";
import { type CommandDeps, commandAccess } from "./command-access.js";

// The caller is signed in, so a body may leave user_id out.
const chatBody = chatRequestSchema.partial({ user_id: true });

/**
 * The gateway's chat (seed 000 §3.1 POST /chat) at /api/command/chat, since /api/chat is the agent's: sync
 * answers the run's reply, async its id at once while the run goes on.
 */
export function commandChatRoutes(ctx: CommandDeps) {
  const access = commandAccess(ctx);
  return [
    defineRoute({
      method: "POST",
      url: "/api/command/chat",
      summary:
        "Ask command (seed 000 §3.1 POST /chat; /api/chat is the agent's): sync answers the reply, async the run id",
      tag: "command",
      access: "user",
      body: chatBody,
      response: z.union([chatSyncDataSchema, chatAsyncDataSchema]),
      async handler({ auth, body, reply }) {
        const userId = access.actingAs(auth, body.user_id ?? auth.userId);
        const theaterId = await access.theaterFor(auth, body.theater_hint, "body.theater_hint");
        const answer = await access
          .service()
          .runs.chat({ userId, theaterId, message: body.message, mode: body.mode });
        // A sync chat that outlasted its wait answers like an async one: accepted, still running.
        if (body.mode === "sync" && !("reply" in answer)) void reply.code(202);
        return answer;
      },
    }),
  ];
}
