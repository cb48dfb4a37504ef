import { cellStatusListSchema, providerNamesSchema } from "../../contracts/index.js";
import { HostProviders } from "../host-providers.js";
import { defineRoute } from "../http/api-route.js";
import type { WardenContext } from "../warden-context.js";

/** What an admin sees of the host: every user's cell (backend, state, uptime, memory) and the provider names. */
export function adminRoutes(ctx: WardenContext) {
  // Built from the same [providers] the daemon's own HostProviders reads; only the names leave this route.
  const providerNames = new HostProviders(ctx.config, {}).names();
  return [
    defineRoute({
      method: "GET",
      url: "/api/admin/cells",
      summary:
        "Each user's cell: backend, running/suspended/stopped/halted, uptime, host memory, restarts (admin)",
      tag: "admin",
      access: "admin",
      response: cellStatusListSchema,
      async handler() {
        const restarts = new Map(ctx.cells.manager.list().map((info) => [info.userId, info.restarts]));
        const cells = await Promise.all(
          ctx.users.list().map(async (user) => {
            const cell = ctx.cells.running(user.id);
            const stats = await cell?.stats().catch(() => undefined);
            const state =
              ctx.soul.halted(user.id) !== undefined
                ? ("halted" as const)
                : stats
                  ? ("running" as const)
                  : (await ctx.cells.suspended(user.id))
                    ? ("suspended" as const)
                    : ("stopped" as const);
            return {
              user: user.id,
              state,
              backend: stats?.backend ?? ctx.cellBackend.name,
              uptime_ms: stats?.uptimeMs ?? null,
              memory_bytes: stats?.hostRssBytes ?? null,
              restarts: restarts.get(user.id) ?? 0,
            };
          }),
        );
        return { backend: ctx.cellBackend.name, isolated: ctx.cellBackend.isolated, cells };
      },
    }),
    defineRoute({
      method: "GET",
      url: "/api/admin/providers",
      summary: "The model providers this host offers to cells, by name (never keys or addresses) (admin)",
      tag: "admin",
      access: "admin",
      response: providerNamesSchema,
      handler: async () => ({ providers: providerNames }),
    }),
  ];
}
