import { ingestResultSchema, runtimeEventPayloadSchema } from "../../contracts/index.js";
import { defineRoute } from "../http/api-route.js";
import type { WardenContext } from "../warden-context.js";

/**
 * Seed 004 ingest under the warden's users: a signed-in user sends runtime event payloads for sessions that are
 * theirs or new (the store remembers who first sent each session), an admin for any session. The payload is
 * stored byte for byte as the request carried it, so the route hands the store the request's raw bytes; the
 * body schema refuses a bad payload first, naming the field under `body`.
 */
export function evolutionRoutes(ctx: Pick<WardenContext, "evolution" | "config">) {
  // The warden's one state, opened at first use: a warden that never receives an event leaves no state behind.
  const evolution = () => ctx.evolution.state();
  return [
    defineRoute({
      method: "POST",
      url: "/api/evolution/events",
      summary:
        "Ingest runtime events (openclaw_appleseed.runtime_event 1.0: one envelope, a list, or a batch): stored " +
        "as received, completed, session_feedback projected; duplicates skipped and listed",
      tag: "evolution",
      access: "user",
      body: runtimeEventPayloadSchema,
      response: ingestResultSchema,
      bodyLimit: ctx.config.server.body_limit,
      handler: async ({ auth, request }) =>
        evolution().ingest(request.rawBody ?? Buffer.alloc(0), {
          submitter: { userId: auth.userId, admin: auth.admin },
        }),
    }),
  ];
}
