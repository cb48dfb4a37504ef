import { z } from "zod";
import { defineRoute } from "../http/api-route.js";
import type { WardenContext } from "../warden-context.js";

/** Liveness and what this warden runs on. Public: it names no user. */
export function systemRoutes(ctx: Pick<WardenContext, "startedAt" | "cellBackend" | "cells">) {
  return [
    defineRoute({
      method: "GET",
      url: "/health",
      summary: "Liveness, uptime, the cell backend and how many cells run",
      tag: "system",
      access: "none",
      response: z.object({
        status: z.literal("ok"),
        uptime_s: z.number(),
        cells: z.object({
          backend: z.string(),
          reason: z.string(),
          isolated: z.boolean(),
          running: z.number(),
          // Blank cells started and waiting for a user ([cells] pool_size).
          pooled: z.number(),
        }),
      }),
      handler: async () => ({
        status: "ok" as const,
        uptime_s: Math.round((Date.now() - ctx.startedAt) / 1000),
        cells: {
          ...ctx.cellBackend,
          running: ctx.cells.manager.list().length,
          pooled: ctx.cells.pool.blankCount,
        },
      }),
    }),
  ];
}
