import { z } from "zod";
import { describeCellExit } from "../../cells/index.js";
import {
  type CellStatus,
  cellStatusListSchema,
  cellStatusSchema,
  providerNamesSchema,
} from "../../contracts/index.js";
import { NotFoundError } from "../../core/index.js";
import { HostProviders } from "../host-providers.js";
import { defineRoute } from "../http/api-route.js";
import type { WardenContext } from "../warden-context.js";

const userParams = z.strictObject({ user: z.string().min(1) });

/** What an admin sees of the host: every user's cell (backend, state, uptime, memory) and the provider names. */
export function adminRoutes(
  ctx: Pick<WardenContext, "config" | "cells" | "cellBackend" | "soul" | "users" | "audit">,
) {
  // Built from the same [providers] the daemon's own HostProviders reads; only the names leave this route.
  const providerNames = new HostProviders(ctx.config, {}).names();
  const restarts = () => new Map(ctx.cells.manager.list().map((info) => [info.userId, info.restarts]));

  /** One user's row: how their cell is now and, after crashes, how it last ended and when it is tried again. */
  async function statusOf(userId: string, restartCounts: Map<string, number>): Promise<CellStatus> {
    const cell = ctx.cells.running(userId);
    const stats = await cell?.stats().catch(() => undefined);
    const failure = ctx.cells.manager.failure(userId);
    const held = failure?.retryAt !== undefined && Date.parse(failure.retryAt) > Date.now();
    const state =
      ctx.soul.halted(userId) !== undefined
        ? ("halted" as const)
        : stats
          ? ("running" as const)
          : held
            ? ("crash_loop" as const)
            : (await ctx.cells.suspended(userId))
              ? ("suspended" as const)
              : ("stopped" as const);
    return {
      user: userId,
      state,
      backend: stats?.backend ?? ctx.cellBackend.name,
      uptime_ms: stats?.uptimeMs ?? null,
      memory_bytes: stats?.hostRssBytes ?? null,
      restarts: restartCounts.get(userId) ?? 0,
      last_crash: failure
        ? {
            at: failure.at,
            code: failure.exit.code,
            signal: failure.exit.signal,
            reason: describeCellExit(failure.exit),
            stderr: failure.exit.stderr ?? "",
            crashes: failure.crashes,
          }
        : null,
      retry_at: held ? (failure?.retryAt ?? null) : null,
    };
  }

  return [
    defineRoute({
      method: "GET",
      url: "/api/admin/cells",
      summary:
        "Each user's cell: backend, running/suspended/stopped/halted/crash_loop, uptime, host memory, restarts, how it last crashed (admin)",
      tag: "admin",
      access: "admin",
      response: cellStatusListSchema,
      async handler() {
        const counts = restarts();
        const cells = await Promise.all(ctx.users.list().map((user) => statusOf(user.id, counts)));
        return { backend: ctx.cellBackend.name, isolated: ctx.cellBackend.isolated, cells };
      },
    }),
    defineRoute({
      method: "POST",
      url: "/api/admin/cells/:user/restart",
      summary:
        "Stop the user's cell if it runs, forget its crashes (ending a crash loop's wait) and start it again (admin)",
      tag: "admin",
      access: "admin",
      params: userParams,
      response: cellStatusSchema,
      async handler({ params, auth }) {
        if (!ctx.users.list().some((u) => u.id === params.user)) throw new NotFoundError("user", params.user);
        ctx.audit.record({
          actor: `user:${auth.userId}`,
          action: "cell.restart",
          detail: { user: params.user },
        });
        // A start that fails again is answered with the row that says why, not with an error of its own.
        await ctx.cells.restart(params.user).catch(() => undefined);
        return statusOf(params.user, restarts());
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
